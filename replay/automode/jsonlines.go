package automode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// node is a JSON value with the line it starts on, so every imported
// entry can say where it came from.
type node struct {
	line int
	// one of these, by the JSON type
	obj  []member
	arr  []*node
	val  any // string, json.Number, bool or nil
	kind byte
}

type member struct {
	key  string
	line int
	val  *node
}

// node kinds
const (
	kObject = 'o'
	kArray  = 'a'
	kString = 's'
	kNumber = 'n'
	kBool   = 'b'
	kNull   = 'z'
)

func (n *node) typeName() string {
	switch n.kind {
	case kObject:
		return "an object"
	case kArray:
		return "an array"
	case kString:
		return "a string"
	case kNumber:
		return "a number"
	case kBool:
		return "a boolean"
	}
	return "null"
}

func (n *node) get(key string) *member {
	for i := range n.obj {
		if n.obj[i].key == key {
			return &n.obj[i]
		}
	}
	return nil
}

// parseJSON reads one JSON document and records the line of every value.
// A syntax error says the line and column.
func parseJSON(data []byte) (*node, error) {
	lines := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var parse func() (*node, error)
	parse = func() (*node, error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxErr(err, lines, dec.InputOffset())
		}
		n := &node{line: lines.at(dec.InputOffset() - 1)}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				n.kind = kObject
				for dec.More() {
					ktok, err := dec.Token()
					if err != nil {
						return nil, syntaxErr(err, lines, dec.InputOffset())
					}
					key, _ := ktok.(string)
					kline := lines.at(dec.InputOffset() - 1)
					v, err := parse()
					if err != nil {
						return nil, err
					}
					n.obj = append(n.obj, member{key: key, line: kline, val: v})
				}
			case '[':
				n.kind = kArray
				for dec.More() {
					v, err := parse()
					if err != nil {
						return nil, err
					}
					n.arr = append(n.arr, v)
				}
			default:
				return nil, fmt.Errorf("%d: unexpected %q", n.line, t)
			}
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return nil, syntaxErr(err, lines, dec.InputOffset())
			}
		case string:
			n.kind, n.val = kString, t
		case json.Number:
			n.kind, n.val = kNumber, t
		case bool:
			n.kind, n.val = kBool, t
		case nil:
			n.kind = kNull
		}
		return n, nil
	}
	root, err := parse()
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%d: data after the top-level value", lines.at(dec.InputOffset()))
	}
	if root.kind != kObject {
		return nil, fmt.Errorf("%d: settings must be a JSON object, found %s", root.line, root.typeName())
	}
	return root, nil
}

// syntaxErr says where a JSON document broke: "LINE:COL: message".
func syntaxErr(err error, lines lineIndex, off int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%d: unexpected end of JSON input", lines.at(off))
	}
	return fmt.Errorf("%d:%d: not JSON: %v", lines.at(off-1), lines.col(off-1), err)
}

// lineIndex maps byte offsets to 1-based lines.
type lineIndex []int // offsets where lines start

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, b := range data {
		if b == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) at(off int64) int {
	if off < 0 {
		off = 0
	}
	lo, hi := 0, len(l)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if int64(l[mid]) <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}

func (l lineIndex) col(off int64) int {
	if off < 0 {
		off = 0
	}
	return int(off) - l[l.at(off)-1] + 1
}

// where is "FILE:LINE".
func where(file string, line int) string { return file + ":" + strconv.Itoa(line) }
