package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	gojson "github.com/goccy/go-json"
)

// typeError is a JSON value of the wrong type for its field, as the
// decoders report it (goccy/go-json's error names the Go struct and field,
// "cannot unmarshal number into Go struct field hookPayload.ToolName of
// type string", which a user cannot map to a key of their log), written
// as the field's path in the record and the types: "tool_name: want a
// string, got number". ok is false for any other error.
func typeError(data []byte, err error) (msg string, ok bool) {
	var ge *gojson.UnmarshalTypeError
	var se *json.UnmarshalTypeError
	var value, field string
	var off int64
	var kind string
	switch {
	case errors.As(err, &ge):
		value, field, off = ge.Value, ge.Field, ge.Offset
		if ge.Type != nil {
			kind = ge.Type.Kind().String()
		}
	case errors.As(err, &se):
		value, field, off = se.Value, se.Field, se.Offset
		if se.Type != nil {
			kind = se.Type.Kind().String()
		}
	default:
		return "", false
	}
	if p := pathAt(data, off); p != "" {
		field = p
	}
	if field == "" {
		return fmt.Sprintf("want %s, got %s", jsonTypeName(kind), value), true
	}
	return fmt.Sprintf("%s: want %s, got %s", field, jsonTypeName(kind), value), true
}

// pathAt is the path (a.b[2].c) of the innermost value of the JSON
// document data that spans byte offset off, or "" when data does not
// read as JSON that far. A decoder reports a type error at the start or
// the end of the value; both lie within its span.
func pathAt(data []byte, off int64) string {
	type frame struct {
		arr     bool
		idx     int
		key     string
		wantKey bool
		path    string
		start   int64
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var st []frame
	best, bestLen := "", int64(-1)
	consider := func(path string, start, end int64) {
		if path != "" && start <= off && off <= end && (bestLen < 0 || end-start < bestLen) {
			best, bestLen = path, end-start
		}
	}
	// valuePath is the path of the value that begins now.
	valuePath := func() string {
		if len(st) == 0 {
			return ""
		}
		f := &st[len(st)-1]
		if f.arr {
			f.idx++
			return f.path + "[" + strconv.Itoa(f.idx) + "]"
		}
		if f.path == "" {
			return f.key
		}
		return f.path + "." + f.key
	}
	skip := func(o int64) int64 {
		for o < int64(len(data)) {
			switch data[o] {
			case ' ', '\t', '\n', '\r', ',', ':':
				o++
				continue
			}
			break
		}
		return o
	}
	for {
		start := skip(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return best
		}
		if len(st) > 0 {
			f := &st[len(st)-1]
			if !f.arr && f.wantKey {
				if k, ok := tok.(string); ok {
					f.key, f.wantKey = k, false
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			p := valuePath()
			st = append(st, frame{arr: tok == json.Delim('['), idx: -1, wantKey: tok == json.Delim('{'), path: p, start: start})
		case json.Delim('}'), json.Delim(']'):
			f := st[len(st)-1]
			st = st[:len(st)-1]
			consider(f.path, f.start, dec.InputOffset())
			if len(st) > 0 && !st[len(st)-1].arr {
				st[len(st)-1].wantKey = true
			}
		default:
			consider(valuePath(), start, dec.InputOffset())
			if len(st) > 0 && !st[len(st)-1].arr {
				st[len(st)-1].wantKey = true
			}
		}
	}
}

// fieldError is jsonError for a value inside a record whose path the
// caller prefixes: "[3].name: want a string, got number" after
// "message.content", ": invalid JSON: …" otherwise.
func fieldError(data []byte, err error) string {
	if msg, ok := typeError(bytes.TrimSpace(data), err); ok {
		if msg[0] == '[' {
			return msg
		}
		return ": " + msg
	}
	return ": invalid JSON: " + err.Error()
}
