package datasets

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

const compressLines = `{"id":"a","tool":{"name":"Bash","arguments":{"command":"ls"}}}
{"id":"b","tool":{"name":"Read","arguments":{"file_path":"x"}}}
`

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zst(t *testing.T, b []byte) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

func readIDs(t *testing.T, paths []string, stdin []byte) ([]string, []string, error) {
	t.Helper()
	r := Open(paths, bytes.NewReader(stdin))
	defer r.Close()
	var ids, errs []string
	for r.Scan() {
		if rec := r.Record(); rec.Err != nil {
			errs = append(errs, rec.Err.Error())
		} else {
			ids = append(ids, rec.Case.ID+"@"+rec.Case.Source)
		}
	}
	return ids, errs, r.Err()
}

// Compressed files are recognised by their magic bytes, not their names: a
// gzip file called .jsonl and a zstd file called .data both read as JSONL.
func TestReaderDecompressesByMagic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string][]byte{
		"plain.jsonl":    []byte(compressLines),
		"a.jsonl.gz":     gz(t, []byte(compressLines)),
		"misnamed.jsonl": gz(t, []byte(compressLines)),
		"b.jsonl.zst":    zst(t, []byte(compressLines)),
		"z.data":         zst(t, []byte(compressLines)),
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ids, errs, err := readIDs(t, []string{p}, nil)
		if err != nil || len(errs) > 0 {
			t.Fatalf("%s: err %v, line errors %v", name, err, errs)
		}
		want := []string{"a@" + p + ":1", "b@" + p + ":2"}
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Errorf("%s: got %v, want %v", name, ids, want)
		}
	}
	// stdin too.
	ids, _, err := readIDs(t, []string{"-"}, zst(t, []byte(compressLines)))
	if err != nil || len(ids) != 2 {
		t.Errorf("zstd stdin: %v %v", ids, err)
	}
}

// A truncated gzip stream is a fatal error naming the file, after the
// lines that could be read.
func TestReaderTruncatedGzip(t *testing.T) {
	t.Parallel()
	big := strings.Repeat(compressLines, 1)
	data := gz(t, []byte(big))
	p := filepath.Join(t.TempDir(), "cut.jsonl.gz")
	if err := os.WriteFile(p, data[:len(data)-6], 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := readIDs(t, []string{p}, nil)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "gzip") {
		t.Fatalf("err = %v, want a gzip error naming %s", err, p)
	}
}

func TestScanRawDecompresses(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "c.zst")
	if err := os.WriteFile(p, zst(t, []byte(compressLines)), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := ScanRaw([]string{p}, nil, func(id string, _ []byte, src string) error {
		got = append(got, id+"@"+src)
		return nil
	})
	if err != nil || strings.Join(got, ",") != "a@"+p+":1,b@"+p+":2" {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestCompression(t *testing.T) {
	t.Parallel()
	for head, want := range map[string]string{"\x1f\x8b\x08": "gzip", "\x28\xb5\x2f\xfd": "zstd", "{\"id\"": "", "PAR1": "", "": ""} {
		if got := Compression([]byte(head)); got != want {
			t.Errorf("Compression(%q) = %q, want %q", head, got, want)
		}
	}
}
