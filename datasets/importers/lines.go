package importers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/apeval/apeval/datasets"
)

// eachLine calls fn with every record of r and the 1-based line it starts
// on. Three layouts are read, told apart by the first bytes:
//
//   - JSON lines (the usual log): one record a line, like datasets.Reader
//     — a UTF-8 byte-order mark and "\r\n" endings are dropped; a line
//     longer than datasets.DefaultMaxLineBytes is reported as an error and
//     skipped; a bad line does not stop the lines after it;
//   - a top-level JSON array (a log committed as logs/pre_tool_use.json,
//     pretty-printed): each element is one record;
//   - pretty-printed JSON documents (the first line is a lone "{"): each
//     document is one record.
//
// In the last two a record that breaks the JSON ends the file (the records
// before it are kept). The record is only valid during the call.
func eachLine(r io.Reader, sum *SourceSummary, fn func(line []byte, n int) error) error {
	rr := newRecordReader(r, sum)
	for {
		rec, n, err := rr.next()
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		if ferr := fn(rec, n); ferr != nil {
			return ferr
		}
	}
}

// recordReader reads the records of one source, one at a time (see
// eachLine): the pull form lets several sources be merged by time.
type recordReader struct {
	br   *bufio.Reader
	sum  *SourceSummary
	mode int // 0 not started, 1 lines, 2 array, 3 documents, 4 done
	n    int
	long []byte
	dec  *json.Decoder
	lc   *lineCounter
}

const (
	modeStart = iota
	modeLines
	modeArray
	modeDocs
	modeDone
)

func newRecordReader(r io.Reader, sum *SourceSummary) *recordReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	return &recordReader{br: br, sum: sum}
}

// next returns the next record and its line; nil at the end. An error is
// a read error of the stream (what was read stays).
func (rr *recordReader) next() ([]byte, int, error) {
	if rr.mode == modeStart {
		rr.start()
	}
	switch rr.mode {
	case modeLines:
		return rr.nextLine()
	case modeArray, modeDocs:
		return rr.nextValue()
	}
	return nil, 0, nil
}

// start tells the layout from the first bytes.
func (rr *recordReader) start() {
	rr.mode = modeLines
	head, _ := rr.br.Peek(64 << 10)
	skip := 0
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		skip = 3
	}
	rest := head[skip:]
	t := bytes.TrimLeft(rest, " \t\r\n")
	if len(t) == 0 {
		return
	}
	first := rest
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		first = rest[:i]
	}
	switch {
	case t[0] == '[':
		rr.mode = modeArray
	case bytes.Equal(bytes.TrimSpace(first), []byte("{")):
		rr.mode = modeDocs
	default:
		return
	}
	_, _ = rr.br.Discard(skip)
	rr.lc = &lineCounter{r: rr.br, off: int64(skip)}
	rr.dec = json.NewDecoder(rr.lc)
	if rr.mode == modeArray {
		if _, err := rr.dec.Token(); err != nil {
			rr.mode = modeDone
		}
	}
}

func (rr *recordReader) nextLine() ([]byte, int, error) {
	for {
		chunk, err := rr.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(rr.long) <= datasets.DefaultMaxLineBytes {
				rr.long = append(rr.long, chunk...)
			}
			continue
		}
		if len(rr.long) > 0 {
			rr.long = append(rr.long, chunk...)
			chunk = rr.long
		}
		var out []byte
		if len(chunk) > 0 {
			rr.n++
			text := bytes.TrimRight(chunk, "\r\n")
			if rr.n == 1 {
				text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
			}
			switch {
			case len(text) > datasets.DefaultMaxLineBytes:
				rr.sum.Records++
				rr.sum.errorf(rr.n, "line longer than %d bytes", datasets.DefaultMaxLineBytes)
			case len(bytes.TrimSpace(text)) > 0:
				rr.sum.Records++
				out = text
			}
			rr.long = rr.long[:0]
		}
		if out != nil {
			if err != nil && !errors.Is(err, io.EOF) {
				rr.mode = modeDone
			}
			return out, rr.n, nil
		}
		if errors.Is(err, io.EOF) {
			rr.mode = modeDone
			return nil, 0, nil
		}
		if err != nil {
			rr.mode = modeDone
			return nil, 0, fmt.Errorf("after line %d: %w", rr.n, err)
		}
	}
}

func (rr *recordReader) nextValue() ([]byte, int, error) {
	if !rr.dec.More() {
		rr.mode = modeDone
		if _, err := rr.dec.Token(); err != nil && !errors.Is(err, io.EOF) {
			rr.sum.errorf(rr.lc.lineAt(rr.dec.InputOffset()), "truncated: the array does not end")
		}
		return nil, 0, nil
	}
	var raw json.RawMessage
	if err := rr.dec.Decode(&raw); err != nil {
		rr.sum.Records++
		rr.mode = modeDone
		off := rr.dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		msg := "invalid JSON: " + err.Error()
		if errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "truncated JSON object"
		}
		rr.sum.errorf(rr.lc.lineAt(off), "%s", msg)
		return nil, 0, nil
	}
	rr.sum.Records++
	start := rr.dec.InputOffset() - int64(len(raw))
	return raw, rr.lc.lineAt(start), nil
}

// lineCounter notes where the newlines of a stream are as it is read, so
// a decoder's byte offset can be turned into a line number.
type lineCounter struct {
	r       io.Reader
	off     int64
	nl      []int64 // offsets of newlines not yet passed
	dropped int     // newlines before nl[0]
}

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.nl = append(l.nl, l.off+int64(i))
		}
	}
	l.off += int64(n)
	return n, err
}

// lineAt is the 1-based line of offset off; offsets asked for only grow.
func (l *lineCounter) lineAt(off int64) int {
	i := 0
	for i < len(l.nl) && l.nl[i] < off {
		i++
	}
	if i > 4096 {
		l.dropped += i
		l.nl = append(l.nl[:0], l.nl[i:]...)
		i = 0
	}
	return l.dropped + i + 1
}

// jsonError describes why a line is not the JSON object expected: a
// truncated line says so.
func jsonError(line []byte, err error) string {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) > 0 && t[0] == '{' && !jsonComplete(t):
		return "truncated JSON object"
	case len(t) > 0 && t[0] != '{' && json.Valid(t):
		return "not a JSON object"
	}
	if msg, ok := typeError(t, err); ok {
		return msg
	}
	return "invalid JSON: " + err.Error()
}

// jsonComplete reports whether the braces and brackets of t balance
// outside strings (a cut-off line does not).
func jsonComplete(t []byte) bool {
	depth, inStr, esc := 0, false, false
	for _, c := range t {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return depth == 0 && !inStr
}

func jsonTypeName(kind string) string {
	switch kind {
	case "slice", "array":
		return "a list"
	case "map", "struct":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	return "a number"
}
