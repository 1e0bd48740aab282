package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Compressed input: a case file (or an importer's source) that starts with
// the gzip magic (1f 8b) or the zstd frame magic (28 b5 2f fd) is
// decompressed as it is read, whatever its name, so `cases.jsonl.gz`,
// `cases.jsonl.zst` and a compressed stream on stdin read like plain JSONL.

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Compression names the compression of a stream from its first bytes:
// "gzip", "zstd" or "" (none).
func Compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(head, zstdMagic):
		return "zstd"
	}
	return ""
}

// Decompress looks at the first bytes of br and, when they are a gzip or
// zstd magic, returns a reader of the decompressed stream (buffered) and a
// function that releases the decoder; otherwise it returns br itself. name
// is used in error messages.
func Decompress(br *bufio.Reader, name string) (*bufio.Reader, func(), error) {
	head, _ := br.Peek(4)
	switch Compression(head) {
	case "gzip":
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		return bufio.NewReaderSize(&namedErrReader{zr, "gzip"}, 1<<20), func() { _ = zr.Close() }, nil
	case "zstd":
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: zstd: %w", name, err)
		}
		return bufio.NewReaderSize(&namedErrReader{zr, "zstd"}, 1<<20), zr.Close, nil
	}
	return br, func() {}, nil
}

// namedErrReader prefixes decompression errors (a truncated or corrupt
// stream) with the format, so a bare "unexpected EOF" says what ended early.
type namedErrReader struct {
	r      io.Reader
	format string
}

func (n *namedErrReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%s stream truncated: %w", n.format, err)
		} else {
			err = fmt.Errorf("%s: %w", n.format, err)
		}
	}
	return k, err
}

// OpenInput opens a file ("-" = stdin) for streaming, decompressing gzip
// and zstd by magic bytes. Close the returned closer when done. An Opener
// as the last argument reads names with a scheme (s3://…).
func OpenInput(path string, stdin io.Reader, urls ...Opener) (*bufio.Reader, io.Closer, error) {
	o := first(urls)
	var src io.Reader
	var f io.ReadCloser
	if path == "-" {
		if stdin == nil {
			return nil, nil, errors.New(StdinName + ": no input")
		}
		src = stdin
	} else {
		var err error
		if f, err = o.open(path); err != nil {
			return nil, nil, err
		}
		src = f
	}
	br, release, err := Decompress(bufio.NewReaderSize(src, 1<<20), o.display(path))
	if err != nil {
		if f != nil {
			_ = f.Close()
		}
		return nil, nil, err
	}
	return br, closerFunc(func() error {
		release()
		if f != nil {
			return f.Close()
		}
		return nil
	}), nil
}

type closerFunc func() error

func (c closerFunc) Close() error { return c() }
