// tilecheck reads authlog's tree over HTTP as C2SP tlog-tiles (GET /checkpoint, /tile/<L>/<N>[.p/<W>],
// /tile/entries/<N>[.p/<W>]) and checks it with Go's golang.org/x/mod/sumdb/note and sumdb/tlog, code nobody at
// authlog wrote:
//
//   - the checkpoint verifies with the log's verifier key (sumdb/note);
//   - inclusion proofs (tlog.ProveRecord / CheckRecord) of sampled leaves, and consistency proofs
//     (tlog.ProveTree / CheckTree) from sampled older sizes and from -old, all computed from tiles read through
//     tlog.TileHashReader;
//   - because TileHashReader does not authenticate every tile it returns, every full hash tile is also hashed
//     and compared with its hash one level up, and the root is rebuilt from the right-edge tiles;
//   - every entry bundle rehashes (RFC 6962 leaf hash) to the level-0 tile, each entry being
//     be64(position) || digest.
//
// After retention (C2SP tlog-tiles' Pruning), the log's minimum index m (GET minimum-index; 0 when the log does
// not serve one) bounds what must be served: every full tile and entry bundle whose end index lies past m, a tile
// that straddles m included, is fetched and checked as above (only full ones ending at or below m are left out),
// the entries from the bundle holding m on are rehashed, inclusion proofs are checked for entries from m on and
// consistency proofs between sizes from m on. A refused tile that reaches past m fails the check.
//
// -old FILE proves the current checkpoint consistent with a kept older one (a fork, or a rewritten history,
// fails); -save FILE then writes the verified current checkpoint there, only when every check passed.
// -dir DIR serves DIR (authlog's log.tile_directory) with Go's plain static file server on loopback and checks
// that instead of -url. -flip PATH flips one byte of the named resource as fetched (e.g. tile/0/001): the check must then fail.
// It prints one summary line and exits 1 on the first disagreement.
//
// Build offline from Debian's packages: GO111MODULE=off GOPATH=/usr/share/gocode go build
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "tilecheck: "+format+"\n", args...)
	os.Exit(1)
}

// fetcher reads resources below the log's URL, once each, flipping a byte of -flip.
type fetcher struct {
	base    string
	flip    string
	client  *http.Client
	cache   map[string][]byte
	fetches int
}

func (f *fetcher) get(path string) ([]byte, error) {
	if data, ok := f.cache[path]; ok {
		return data, nil
	}
	response, err := f.client.Get(f.base + "/" + path)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	data, err := io.ReadAll(io.LimitReader(response.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if response.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", path, response.StatusCode, bytes.TrimSpace(data))
	}
	if strings.HasPrefix(path, "tile/") && response.Header.Get("Content-Type") != "application/octet-stream" {
		return nil, fmt.Errorf("GET %s: Content-Type %q", path, response.Header.Get("Content-Type"))
	}
	if path == f.flip && len(data) > 0 {
		data = append([]byte(nil), data...)
		data[len(data)/2] ^= 0x01
	}
	f.fetches++
	f.cache[path] = data
	return data, nil
}

// c2spPath is tlog's tile path without the height: tile/8/L/N[.p/W] is tile/L/N[.p/W].
func c2spPath(t tlog.Tile) string {
	return "tile/" + strings.TrimPrefix(t.Path(), "tile/8/")
}

// tileReader serves tlog.TileHashReader from the fetcher.
type tileReader struct{ f *fetcher }

func (r tileReader) Height() int { return height }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		if t.H != height || t.L < 0 {
			return nil, fmt.Errorf("unexpected tile %v", t)
		}
		data, err := r.f.get(c2spPath(t))
		if err != nil {
			return nil, err
		}
		if len(data) != t.W*tlog.HashSize {
			return nil, fmt.Errorf("%s: %d bytes, want %d", c2spPath(t), len(data), t.W*tlog.HashSize)
		}
		out[i] = data
	}
	return out, nil
}

func (r tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// tileHashes fetches the tile of level L and index n the tree of size has (full or partial).
func tileHashes(f *fetcher, size int64, level int, n int64) ([]tlog.Hash, error) {
	nodes := size >> uint(height*level)
	width := nodes - n*256
	if width > 256 {
		width = 256
	}
	if width <= 0 {
		return nil, fmt.Errorf("tile %d/%d is beyond the tree of %d", level, n, size)
	}
	t := tlog.Tile{H: height, L: level, N: n, W: int(width)}
	data, err := f.get(c2spPath(t))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != width*tlog.HashSize {
		return nil, fmt.Errorf("%s: %d bytes, want %d", c2spPath(t), len(data), width*tlog.HashSize)
	}
	hashes := make([]tlog.Hash, width)
	for i := range hashes {
		copy(hashes[i][:], data[i*tlog.HashSize:])
	}
	return hashes, nil
}

// merkle is the RFC 6962 hash of a power-of-two run of hashes.
func merkle(hashes []tlog.Hash) tlog.Hash {
	for len(hashes) > 1 {
		next := make([]tlog.Hash, len(hashes)/2)
		for i := range next {
			next[i] = tlog.NodeHash(hashes[2*i], hashes[2*i+1])
		}
		hashes = next
	}
	return hashes[0]
}

// endIndex is tlog-tiles' end index of tile n at level: the first leaf index after the leaves it spans.
func endIndex(level int, n int64) int64 {
	shift := uint(height * (level + 1))
	if shift >= 63 || n+1 > (int64(1)<<62)>>shift {
		return 1<<63 - 1
	}
	return (n + 1) << shift
}

// checkFullTiles hashes every full tile whose end index lies past min and compares it with its entry one level
// up; returns the count.
func checkFullTiles(f *fetcher, size, min int64) (int, error) {
	count := 0
	for level := 0; size>>uint(height*(level+1)) > 0; level++ {
		full := (size >> uint(height*level)) / 256
		for n := int64(0); n < full; n++ {
			if endIndex(level, n) <= min {
				continue
			}
			hashes, err := tileHashes(f, size, level, n)
			if err != nil {
				return count, err
			}
			parent, err := tileHashes(f, size, level+1, n/256)
			if err != nil {
				return count, err
			}
			if merkle(hashes) != parent[n%256] {
				return count, fmt.Errorf("full tile %d/%d does not hash to its entry in tile %d/%d", level, n, level+1, n/256)
			}
			count++
		}
	}
	return count, nil
}

// rootFromTiles rebuilds the root of the tree of size from the right-edge tiles.
func rootFromTiles(f *fetcher, size int64) (tlog.Hash, error) {
	var edge []tlog.Hash
	start := int64(0)
	for k := 62; k >= 0; k-- {
		if size&(int64(1)<<uint(k)) == 0 {
			continue
		}
		level, span := k/height, int64(1)<<uint(k%height)
		first := (start >> uint(k)) * span
		hashes, err := tileHashes(f, size, level, first/256)
		if err != nil {
			return tlog.Hash{}, err
		}
		offset := first % 256
		edge = append(edge, merkle(hashes[offset:offset+span]))
		start += int64(1) << uint(k)
	}
	root := edge[len(edge)-1]
	for i := len(edge) - 2; i >= 0; i-- {
		root = tlog.NodeHash(edge[i], root)
	}
	return root, nil
}

// checkBundles parses every entry bundle from the one holding min and compares its leaf hashes with the level-0
// tile; returns the leaf hashes, from leaf index (min/256)*256 on.
func checkBundles(f *fetcher, size, min int64) ([]tlog.Hash, error) {
	leaves := make([]tlog.Hash, 0, size-min/256*256)
	for n := min / 256; n*256 < size; n++ {
		tile, err := tileHashes(f, size, 0, n)
		if err != nil {
			return nil, err
		}
		path := fmt.Sprintf("tile/entries/%s", strings.TrimPrefix(c2spPath(tlog.Tile{H: height, L: 0, N: n, W: len(tile)}), "tile/0/"))
		data, err := f.get(path)
		if err != nil {
			return nil, err
		}
		for i := range tile {
			if len(data) < 2 {
				return nil, fmt.Errorf("%s: %d entries, want %d", path, i, len(tile))
			}
			length := int(binary.BigEndian.Uint16(data))
			if length != 40 || len(data) < 2+length {
				return nil, fmt.Errorf("%s: entry %d is %d bytes", path, i, length)
			}
			entry := data[2 : 2+length]
			data = data[2+length:]
			index := n*256 + int64(i)
			if int64(binary.BigEndian.Uint64(entry)) != index+1 {
				return nil, fmt.Errorf("%s: entry %d names position %d", path, i, binary.BigEndian.Uint64(entry))
			}
			if tlog.RecordHash(entry) != tile[i] {
				return nil, fmt.Errorf("%s: entry %d does not hash to leaf %d of the level-0 tile", path, i, index)
			}
			leaves = append(leaves, tile[i])
		}
		if len(data) != 0 {
			return nil, fmt.Errorf("%s: %d bytes after the last entry", path, len(data))
		}
	}
	return leaves, nil
}

// openCheckpoint verifies a checkpoint note and returns its size and root.
func openCheckpoint(text []byte, verifier note.Verifier) (int64, tlog.Hash, error) {
	n, err := note.Open(text, note.VerifierList(verifier))
	if err != nil {
		return 0, tlog.Hash{}, fmt.Errorf("checkpoint: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 {
		return 0, tlog.Hash{}, errors.New("checkpoint: too few lines")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 1 {
		return 0, tlog.Hash{}, fmt.Errorf("checkpoint: bad size %q", lines[1])
	}
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != tlog.HashSize {
		return 0, tlog.Hash{}, fmt.Errorf("checkpoint: bad root %q", lines[2])
	}
	var root tlog.Hash
	copy(root[:], raw)
	return size, root, nil
}

func main() {
	base := flag.String("url", "", "the log's URL prefix (http://127.0.0.1:PORT)")
	vkey := flag.String("vkey", "", "the log's verifier key")
	old := flag.String("old", "", "a file holding an older checkpoint note to prove consistency from")
	flip := flag.String("flip", "", "flip one byte of this resource as fetched (the check must then fail)")
	samples := flag.Int("samples", 200, "inclusion and consistency proofs to check")
	save := flag.String("save", "", "after every check passed, write the verified checkpoint to this file")
	dir := flag.String("dir", "", "serve this tile directory with a plain static file server and check it")
	flag.Parse()
	if *dir != "" {
		listener, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fail("%v", err)
		}
		files := http.FileServer(http.Dir(*dir))
		go http.Serve(listener, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/tile/") {
				w.Header().Set("Content-Type", "application/octet-stream")
			}
			files.ServeHTTP(w, r)
		}))
		*base = "http://" + listener.Addr().String()
	}
	verifier, err := note.NewVerifier(*vkey)
	if err != nil {
		fail("verifier key: %v", err)
	}
	f := &fetcher{base: strings.TrimSuffix(*base, "/"), flip: *flip, client: &http.Client{Timeout: 30 * time.Second}, cache: map[string][]byte{}}
	text, err := f.get("checkpoint")
	if err != nil {
		fail("%v", err)
	}
	size, root, err := openCheckpoint(text, verifier)
	if err != nil {
		fail("%v", err)
	}
	min := int64(0)
	if data, err := f.get("minimum-index"); err == nil {
		min, err = strconv.ParseInt(strings.TrimSuffix(string(data), "\n"), 10, 64)
		if err != nil || min < 0 || min > size {
			fail("minimum-index %q is not a number from 0 to the checkpoint's size %d", data, size)
		}
	} else if !strings.Contains(err.Error(), ": 404") {
		fail("%v", err)
	}
	tree := tlog.Tree{N: size, Hash: root}
	hr := tlog.TileHashReader(tree, tileReader{f})

	full, err := checkFullTiles(f, size, min)
	if err != nil {
		fail("%v", err)
	}
	rebuilt, err := rootFromTiles(f, size)
	if err != nil {
		fail("%v", err)
	}
	if rebuilt != root {
		fail("the root rebuilt from the right-edge tiles is not the checkpoint's")
	}
	leaves, err := checkBundles(f, size, min)
	if err != nil {
		fail("%v", err)
	}
	first := min / 256 * 256

	random := rand.New(rand.NewSource(size))
	indexes := []int64{min, size - 1, min + (size-min)/2}
	for i := 0; i < *samples; i++ {
		indexes = append(indexes, min+random.Int63n(size-min))
	}
	for _, n := range indexes {
		proof, err := tlog.ProveRecord(size, n, hr)
		if err != nil {
			fail("ProveRecord(%d, %d): %v", size, n, err)
		}
		if err := tlog.CheckRecord(proof, size, root, n, leaves[n-first]); err != nil {
			fail("CheckRecord(%d, %d): %v", size, n, err)
		}
	}
	lowest := min
	if lowest < 1 {
		lowest = 1
	}
	olds := []int64{lowest, size}
	for i := 0; i < *samples/10; i++ {
		olds = append(olds, lowest+random.Int63n(size-lowest+1))
	}
	consistency := 0
	check := func(n int64, h tlog.Hash) {
		proof, err := tlog.ProveTree(size, n, hr)
		if err != nil {
			fail("ProveTree(%d, %d): %v", size, n, err)
		}
		if err := tlog.CheckTree(proof, size, root, n, h); err != nil {
			fail("CheckTree(%d, %d): %v", size, n, err)
		}
		consistency++
	}
	for _, n := range olds {
		h, err := tlog.TreeHash(n, hr)
		if err != nil {
			fail("TreeHash(%d): %v", n, err)
		}
		check(n, h)
	}
	if *old != "" {
		text, err := os.ReadFile(*old)
		if err != nil {
			fail("%v", err)
		}
		n, h, err := openCheckpoint(text, verifier)
		if err != nil {
			fail("old %v", err)
		}
		if n > size {
			fail("the older checkpoint (%d) is larger than the current one (%d)", n, size)
		}
		check(n, h)
	}
	if *save != "" {
		temporary := *save + ".tmp"
		if err := os.WriteFile(temporary, text, 0o644); err != nil {
			fail("%v", err)
		}
		if err := os.Rename(temporary, *save); err != nil {
			fail("%v", err)
		}
	}
	minimum := ""
	if min > 0 {
		minimum = fmt.Sprintf(" from minimum index %d", min)
	}
	fmt.Printf("size %d%s: %d full tiles against their parents, root rebuilt, %d entries rehashed, inclusion %d, consistency %d, %d resources fetched\n",
		size, minimum, full, len(leaves), len(indexes), consistency, f.fetches)
}
