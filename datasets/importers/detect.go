package importers

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	gojson "github.com/goccy/go-json"

	"github.com/apeval/apeval/datasets"
)

// sniffBytes is how much of a source's start the format is told from.
const sniffBytes = 256 << 10

// sniffRecords is how many of the first records vote on the format.
const sniffRecords = 32

// sniff names the format the first records of head look like ("" when
// none): each record votes for the format its fields belong to, and the
// format with most votes wins (ties: the first record's).
func sniff(head []byte) string {
	scratch := &SourceSummary{Skipped: map[string]int{}}
	rr := newRecordReader(bufio.NewReader(bytes.NewReader(head)), scratch)
	votes := map[string]int{}
	first := ""
	for i := 0; i < sniffRecords; i++ {
		rec, _, err := rr.next()
		if err != nil || rec == nil {
			break
		}
		f := sniffRecord(rec)
		if f == "" {
			continue
		}
		if first == "" {
			first = f
		}
		votes[f]++
	}
	if first == "" && jaegerHead.Match(head) {
		// One Jaeger document larger than the sniffed head: its start says it.
		return "otel-genai-spans"
	}
	best := first
	for f, n := range votes {
		if n > votes[best] || (n == votes[best] && f < best && best != first) {
			best = f
		}
	}
	return best
}

// sniffRecord names the format one record belongs to, by the fields only
// that format's records have: the first format of the table, in sniffOrder,
// whose sniff accepts it.
func sniffRecord(rec []byte) string {
	var m map[string]gojson.RawMessage
	if gojson.Unmarshal(rec, &m) != nil {
		return ""
	}
	r := sniffed{m: m}
	r.typ = r.str("type")
	for _, f := range sniffOrder() {
		if f.sniff(r) {
			return f.name
		}
	}
	return ""
}

// sniffOrder is the table's detectable formats in the order they are tried.
var sniffOrder = sync.OnceValue(func() []format {
	var fs []format
	for _, f := range table() {
		if f.sniff != nil {
			fs = append(fs, f)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].sniffOrder < fs[j].sniffOrder })
	return fs
})

// sniffed is one record's top-level fields, for the table's sniff funcs.
type sniffed struct {
	m   map[string]gojson.RawMessage
	typ string // the "type" field's string value
}

// has reports whether the record has every key.
func (r sniffed) has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := r.m[k]; !ok {
			return false
		}
	}
	return true
}

// str is a field's string value, "" when absent or not a string.
func (r sniffed) str(k string) string {
	var s string
	if raw, ok := r.m[k]; ok {
		_ = gojson.Unmarshal(raw, &s)
	}
	return s
}

// typeIn reports whether the type field is one of types.
func (r sniffed) typeIn(types ...string) bool {
	for _, t := range types {
		if r.typ == t {
			return true
		}
	}
	return false
}

// Detect names the format of sources from their first records (for
// `--from auto`), and says why. A directory is looked into: an OpenCode
// storage tree by its layout, else the first file that reads as one of the
// formats.
func Detect(sources []string, stdin *bufio.Reader) (format, why string, err error) {
	for _, src := range sources {
		if src == "-" {
			if stdin == nil {
				return "", "", fmt.Errorf("%s: no input", datasets.StdinName)
			}
			head, _ := stdin.Peek(sniffBytes)
			if f := sniff(head); f != "" {
				return f, "the first records of " + datasets.StdinName, nil
			}
			continue
		}
		st, err := os.Stat(src)
		if err != nil {
			return "", "", err
		}
		if !st.IsDir() {
			if crushDBName(src) && sqliteFile(src) {
				return "opencode", src + " is Charm Crush's database (the Go OpenCode's tables, which Crush kept)", nil
			}
			if openCodeDBName(src) || sqliteFile(src) {
				return "opencode", src + " is an SQLite database (OpenCode keeps its sessions in opencode.db)", nil
			}
			if f := sniffFile(src); f != "" {
				return f, "the first records of " + src, nil
			}
			continue
		}
		if db, ok := findOpenCodeDB(src); ok {
			return "opencode", src + " holds " + cmpOr(agentDB(db), "OpenCode's database") + " " + filepath.Base(db), nil
		}
		if root, ok := openCodeRoot(src); ok {
			return "opencode", root + " has OpenCode's session/, message/ and part/ directories", nil
		}
		var files []string
		_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if !d.IsDir() {
				q := stripCompression(p)
				if strings.HasSuffix(q, ".jsonl") || strings.HasSuffix(q, ".json") {
					files = append(files, p)
				}
			}
			return nil
		})
		sort.Strings(files)
		for i, f := range files {
			if i == 64 {
				break
			}
			if format := sniffFile(f); format != "" {
				return format, "the first records of " + f, nil
			}
		}
	}
	hint := ""
	for _, src := range sources {
		if st, err := os.Stat(src); err == nil && st.IsDir() {
			hint = " (" + noStoreHint() + ", and no .json/.jsonl file read as one)"
		}
	}
	return "", "", fmt.Errorf("the format of %s could not be told from its first records%s: give --from (one of %s)",
		strings.Join(sources, ", "), hint, strings.Join(Formats(), ", "))
}

// sqliteFile reports whether a file starts with SQLite's header.
func sqliteFile(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	n, _ := io.ReadFull(f, head)
	return n == len(head) && string(head) == sqliteMagic
}

// sniffFile sniffs the start of one file ("" when it cannot be read).
func sniffFile(p string) string {
	f, _ := sniffFileErr(p)
	return f
}

// sniffFileErr sniffs the start of one file; err says why it could not be
// opened (or its compressed stream started).
func sniffFileErr(p string) (string, error) {
	br, closer, err := datasets.OpenInput(p, nil)
	if err != nil {
		return "", err
	}
	defer closer.Close()
	head, _ := br.Peek(sniffBytes)
	return sniff(head), nil
}
