// splitviewcheck judges a device's split-view evidence with Go's golang.org/x/mod/sumdb/note and sumdb/tlog,
// code nobody at authlog wrote. It reads one JSON document on standard input (see Input): the log's verifier
// key and the alarm's evidence text as AuthlogClient renders it (SplitViewAlarm.evidence): the checkpoint note
// the device kept and the one it was shown later, each verbatim between marker lines, and the consistency
// proof the log served between their sizes, if any (base64 hashes between marker lines). It opens both notes
// with note.Open and decides whether one log could have signed both: the same size with two roots is a fork;
// two sizes are consistent only when tlog.CheckTree accepts the proof from the smaller tree to the larger. It
// prints its reading of each note and one verdict line, and exits 0 whatever the verdict; it exits 1 when the
// text lacks a part, or a note does not verify or is not a checkpoint.
//
// Build offline from Debian's packages: GO111MODULE=off GOPATH=/usr/share/gocode go build
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type Input struct {
	VerifierKey string `json:"verifier_key"`
	Evidence    string `json:"evidence"`
}

type checkpoint struct {
	origin string
	size   int64
	root   tlog.Hash
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "splitviewcheck: "+format+"\n", args...)
	os.Exit(1)
}

func hash(text string) (tlog.Hash, error) {
	var h tlog.Hash
	bytes, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(bytes) != tlog.HashSize {
		return h, fmt.Errorf("not a base64 hash: %q", text)
	}
	copy(h[:], bytes)
	return h, nil
}

// open verifies a note under the log's key and parses its checkpoint body (origin, size, base64 root).
func open(name, text string, verifiers note.Verifiers) checkpoint {
	n, err := note.Open([]byte(text), verifiers)
	if err != nil {
		fail("the %s note does not verify: %v", name, err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[0] == "" || lines[len(lines)-1] != "" {
		fail("the %s note is not a checkpoint: %q", name, n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		fail("the %s note has a bad tree size %q", name, lines[1])
	}
	root, err := hash(lines[2])
	if err != nil {
		fail("the %s note: %v", name, err)
	}
	signers := []string{}
	for _, sig := range n.Sigs {
		signers = append(signers, sig.Name)
	}
	fmt.Printf("%s: origin %s, size %d, root %s, signed by %s\n", name, lines[0], size, lines[2],
		strings.Join(signers, ", "))
	return checkpoint{origin: lines[0], size: size, root: root}
}

// section returns the lines between the line starting with begin and the next line starting with end, or
// nil when there is no such section.
func section(lines []string, begin, end string) []string {
	for i, line := range lines {
		if !strings.HasPrefix(line, begin) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], end) {
				return lines[i+1 : j]
			}
		}
		fail("%s has no %s line", begin, end)
	}
	return nil
}

// note returns the note between the markers, with its final newline.
func noteIn(lines []string, name string) string {
	body := section(lines, "-----BEGIN "+name+" CHECKPOINT", "-----END "+name+" CHECKPOINT-----")
	if body == nil {
		fail("the evidence has no %s checkpoint", strings.ToLower(name))
	}
	return strings.Join(body, "\n") + "\n"
}

func main() {
	var input Input
	if err := json.NewDecoder(os.Stdin).Decode(&input); err != nil {
		fail("reading input: %v", err)
	}
	verifier, err := note.NewVerifier(input.VerifierKey)
	if err != nil {
		fail("verifier key: %v", err)
	}
	verifiers := note.VerifierList(verifier)
	lines := strings.Split(input.Evidence, "\n")
	kept := open("kept", noteIn(lines, "KEPT"), verifiers)
	shown := open("shown", noteIn(lines, "SHOWN"), verifiers)
	consistency := section(lines, "-----BEGIN CONSISTENCY PROOF", "-----END CONSISTENCY PROOF-----")
	if kept.origin != shown.origin {
		fmt.Printf("verdict: two logs (origins %s and %s)\n", kept.origin, shown.origin)
		return
	}
	if kept.size == shown.size {
		if kept.root == shown.root {
			fmt.Printf("verdict: the same tree of %d\n", kept.size)
		} else {
			fmt.Printf("verdict: fork: the key %s signed two different trees of size %d\n", verifier.Name(), kept.size)
		}
		return
	}
	older, newer := kept, shown
	if shown.size < kept.size {
		older, newer = shown, kept
	}
	if len(consistency) == 0 {
		fmt.Printf("verdict: no proof from %d to %d was served: nothing shows the tree of %d is a prefix of the tree of %d\n",
			older.size, newer.size, older.size, newer.size)
		return
	}
	proof := make(tlog.TreeProof, len(consistency))
	for i, text := range consistency {
		h, err := hash(text)
		if err != nil {
			fail("consistency proof hash %d: %v", i, err)
		}
		proof[i] = h
	}
	if err := tlog.CheckTree(proof, newer.size, newer.root, older.size, older.root); err != nil {
		fmt.Printf("verdict: inconsistent: tlog.CheckTree refuses the proof from %d to %d (%v): the key %s signed two trees that are not one log\n",
			older.size, newer.size, err, verifier.Name())
		return
	}
	fmt.Printf("verdict: consistent: the tree of %d is a prefix of the tree of %d\n", older.size, newer.size)
}
