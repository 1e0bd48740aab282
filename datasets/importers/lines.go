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

// eachLine calls fn with every non-blank line of r and its 1-based number,
// like datasets.Reader: a UTF-8 byte-order mark and "\r\n" endings are
// dropped; a line longer than datasets.DefaultMaxLineBytes is reported as
// an error and skipped. The line is only valid during the call.
func eachLine(r io.Reader, sum *SourceSummary, fn func(line []byte, n int) error) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<20)
	}
	var long []byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long) <= datasets.DefaultMaxLineBytes {
				long = append(long, chunk...)
			}
			continue
		}
		if len(long) > 0 {
			long = append(long, chunk...)
			chunk = long
		}
		if len(chunk) > 0 {
			n++
			text := bytes.TrimRight(chunk, "\r\n")
			if n == 1 {
				text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
			}
			switch {
			case len(text) > datasets.DefaultMaxLineBytes:
				sum.Records++
				sum.errorf(n, "line longer than %d bytes", datasets.DefaultMaxLineBytes)
			case len(bytes.TrimSpace(text)) > 0:
				sum.Records++
				if ferr := fn(text, n); ferr != nil {
					return ferr
				}
			}
			long = long[:0]
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("after line %d: %w", n, err)
		}
	}
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
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("%s: want %s, got %s", te.Field, jsonTypeName(te.Type.Kind().String()), te.Value)
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
