// tlogcheck checks authlog's signed checkpoints and Merkle proofs with Go's golang.org/x/mod/sumdb/note and
// sumdb/tlog, code nobody at authlog wrote. It reads one JSON document on standard input (see Input), checks
// every note and proof, then flips one byte in each and requires the check to fail. It prints one summary
// line and exits 1 on the first disagreement.
//
// Build offline from Debian's packages: GO111MODULE=off GOPATH=/usr/share/gocode go build
package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type Input struct {
	VerifierKey string        `json:"verifier_key"`
	Notes       []string      `json:"notes"`
	Inclusion   []Inclusion   `json:"inclusion"`
	Consistency []Consistency `json:"consistency"`
}

type Inclusion struct {
	Position int64    `json:"position"`
	TreeSize int64    `json:"tree_size"`
	Digest   string   `json:"digest"`
	LeafHash string   `json:"leaf_hash"`
	RootHash string   `json:"root_hash"`
	Proof    []string `json:"proof"`
}

type Consistency struct {
	From     int64    `json:"from"`
	To       int64    `json:"to"`
	FromRoot string   `json:"from_root_hash"`
	ToRoot   string   `json:"to_root_hash"`
	Proof    []string `json:"proof"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "tlogcheck: "+format+"\n", args...)
	os.Exit(1)
}

func hash(text string) tlog.Hash {
	bytes, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(bytes) != tlog.HashSize {
		fail("not a base64 hash: %q", text)
	}
	var h tlog.Hash
	copy(h[:], bytes)
	return h
}

func hashes(texts []string) []tlog.Hash {
	out := make([]tlog.Hash, len(texts))
	for i, text := range texts {
		out[i] = hash(text)
	}
	return out
}

func flip(h tlog.Hash, i int) tlog.Hash {
	h[i%tlog.HashSize] ^= 0x01
	return h
}

// checkNote opens a note and parses its checkpoint body (origin, size, base64 root).
func checkNote(text string, verifiers note.Verifiers) error {
	n, err := note.Open([]byte(text), verifiers)
	if err != nil {
		return err
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[0] == "" || lines[len(lines)-1] != "" {
		return fmt.Errorf("not a checkpoint body: %q", n.Text)
	}
	if size, err := strconv.ParseInt(lines[1], 10, 64); err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return fmt.Errorf("bad tree size %q", lines[1])
	}
	if root, err := base64.StdEncoding.DecodeString(lines[2]); err != nil || len(root) != tlog.HashSize {
		return fmt.Errorf("bad root %q", lines[2])
	}
	return nil
}

// sameSignedContent reports whether two notes have the same body and signature lines that decode to the
// same bytes.
func sameSignedContent(a, b string) bool {
	ia, ib := strings.LastIndex(a, "\n\n"), strings.LastIndex(b, "\n\n")
	if ia < 0 || ib < 0 || a[:ia] != b[:ib] {
		return false
	}
	la, lb := strings.Split(a[ia+2:], "\n"), strings.Split(b[ib+2:], "\n")
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		fa, fb := strings.Fields(la[i]), strings.Fields(lb[i])
		if len(fa) != len(fb) {
			return false
		}
		for j := range fa {
			if fa[j] == fb[j] {
				continue
			}
			da, ea := base64.StdEncoding.DecodeString(fa[j])
			db, eb := base64.StdEncoding.DecodeString(fb[j])
			if ea != nil || eb != nil || string(da) != string(db) {
				return false
			}
		}
	}
	return true
}

func main() {
	var input Input
	if err := json.NewDecoder(os.Stdin).Decode(&input); err != nil {
		fail("reading input: %v", err)
	}
	notes, flippedNotes := 0, 0
	if len(input.Notes) > 0 {
		verifier, err := note.NewVerifier(input.VerifierKey)
		if err != nil {
			fail("verifier key: %v", err)
		}
		verifiers := note.VerifierList(verifier)
		for _, text := range input.Notes {
			if err := checkNote(text, verifiers); err != nil {
				fail("note rejected: %v\n%s", err, text)
			}
			notes++
			for i := 0; i < len(text); i++ {
				if text[i] == '\n' {
					continue
				}
				b := []byte(text)
				b[i] ^= 0x01
				if sameSignedContent(text, string(b)) {
					// The flip only touched base64's unused low bits of the signature's last character,
					// which decode to the same bytes: the same note.
					continue
				}
				if checkNote(string(b), verifiers) == nil {
					fail("a note with byte %d flipped was accepted", i)
				}
				flippedNotes++
			}
		}
	}
	included, flippedInclusion := 0, 0
	for _, p := range input.Inclusion {
		leaf, root, proof := hash(p.LeafHash), hash(p.RootHash), hashes(p.Proof)
		if p.Digest != "" {
			data := make([]byte, 8, 40)
			binary.BigEndian.PutUint64(data, uint64(p.Position))
			digest := hash(p.Digest)
			data = append(data, digest[:]...)
			if tlog.RecordHash(data) != leaf {
				fail("leaf %d: RecordHash(position || digest) differs from authlog's leaf hash", p.Position)
			}
		}
		index := p.Position - 1
		if err := tlog.CheckRecord(proof, p.TreeSize, root, index, leaf); err != nil {
			fail("inclusion of %d in %d rejected: %v", p.Position, p.TreeSize, err)
		}
		included++
		if tlog.CheckRecord(proof, p.TreeSize, flip(root, int(index)), index, leaf) == nil {
			fail("inclusion of %d in %d accepted a flipped root", p.Position, p.TreeSize)
		}
		if tlog.CheckRecord(proof, p.TreeSize, root, index, flip(leaf, int(index))) == nil {
			fail("inclusion of %d in %d accepted a flipped leaf", p.Position, p.TreeSize)
		}
		flippedInclusion += 2
		for i := range proof {
			bad := append([]tlog.Hash(nil), proof...)
			bad[i] = flip(bad[i], i)
			if tlog.CheckRecord(bad, p.TreeSize, root, index, leaf) == nil {
				fail("inclusion of %d in %d accepted proof hash %d flipped", p.Position, p.TreeSize, i)
			}
			flippedInclusion++
		}
	}
	consistent, flippedConsistency := 0, 0
	for _, p := range input.Consistency {
		from, to, proof := hash(p.FromRoot), hash(p.ToRoot), hashes(p.Proof)
		if err := tlog.CheckTree(proof, p.To, to, p.From, from); err != nil {
			fail("consistency %d→%d rejected: %v", p.From, p.To, err)
		}
		consistent++
		if p.From == p.To {
			continue
		}
		if tlog.CheckTree(proof, p.To, flip(to, 3), p.From, from) == nil {
			fail("consistency %d→%d accepted a flipped new root", p.From, p.To)
		}
		if tlog.CheckTree(proof, p.To, to, p.From, flip(from, 5)) == nil {
			fail("consistency %d→%d accepted a flipped old root", p.From, p.To)
		}
		flippedConsistency += 2
		for i := range proof {
			bad := append([]tlog.Hash(nil), proof...)
			bad[i] = flip(bad[i], i)
			if tlog.CheckTree(bad, p.To, to, p.From, from) == nil {
				fail("consistency %d→%d accepted proof hash %d flipped", p.From, p.To, i)
			}
			flippedConsistency++
		}
	}
	fmt.Printf("notes %d (flipped %d rejected), inclusion %d (flipped %d rejected), consistency %d (flipped %d rejected)\n",
		notes, flippedNotes, included, flippedInclusion, consistent, flippedConsistency)
}
