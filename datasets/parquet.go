package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquetMagic starts (and ends) every Parquet file.
var parquetMagic = []byte("PAR1")

// Parquet input (see docs/cases.md): the same records with the same field names.
// Nested fields may be Parquet groups, lists and maps, or JSON text in a
// string column where a column type would not fit (tool.arguments always
// is, in practice). Each row is turned into the JSON object it stands for
// and decoded and validated exactly like a JSONL line, so both formats give
// the same cases and the same messages; "file:N" then names the N-th row.

// nestedPaths are the case fields that hold objects or arrays; a string
// found there is taken as JSON text.
var nestedPaths = map[string]bool{
	"tool": true, "context": true, "labels": true, "tags": true, "recorded": true,
	"tool.arguments": true, "context.recent_messages": true, "context.approved_fingerprints": true,
	"recorded.decisions": true,
}

// produceParquet reads a Parquet file row by row into batches of JSON lines.
func (r *Reader) produceParquet(idx int, f *os.File, send func(*batch) bool) (ok bool) {
	name := r.files[idx]
	fatal := func(err error) bool {
		send(&batch{fatal: fmt.Errorf("%s: %w", name, err), done: make(chan struct{})})
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fatal(err)
	}
	// parquet-go panics on some malformed schemas; a bad file is an error,
	// not a crash.
	var row int
	defer func() {
		if p := recover(); p != nil {
			ok = fatal(fmt.Errorf("row %d: malformed Parquet: %v", row+1, p))
		}
	}()
	pr := parquet.NewReader(pf)
	defer pr.Close()
	schema := pf.Schema()
	b := newBatch(name, idx)
	for {
		m := map[string]any{}
		err := pr.Read(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if len(b.lines) > 0 && !send(b) {
				return false
			}
			return fatal(fmt.Errorf("row %d: %w", row+1, err))
		}
		row++
		line, err := json.Marshal(jsonValue(m, schema, ""))
		if err != nil {
			return fatal(fmt.Errorf("row %d: %w", row, err))
		}
		ref := lineRef{line: row, seq: int64(row)}
		if len(line) > r.MaxLineBytes {
			ref.tooLong = true
		} else {
			ref.start = len(b.arena)
			b.arena = append(b.arena, line...)
			ref.end = len(b.arena)
		}
		b.lines = append(b.lines, ref)
		if len(b.lines) >= batchLines || len(b.arena) >= batchBytes {
			if !send(b) {
				return false
			}
			b = newBatch(name, idx)
		}
	}
	if len(b.lines) > 0 {
		return send(b)
	}
	return true
}

// jsonValue turns a value parquet-go reconstructed into map[string]any back
// into its JSON form, using the file's schema for what the generic
// reconstruction loses: strings come back as bytes, timestamps as integers.
// path is the dotted case field path, list indices left out.
func jsonValue(v any, node parquet.Node, path string) any {
	if v == nil {
		return nil
	}
	if s, ok := v.(string); ok && nestedPaths[path] && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	if node.Leaf() {
		return leafValue(v, node)
	}
	if isParquetList(node) {
		elem := node.Fields()[0].Fields()[0]
		list, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(list))
		for i, e := range list {
			out[i] = jsonValue(e, elem, path)
		}
		return out
	}
	if isParquetMap(node) {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		var valueNode parquet.Node
		for _, kv := range node.Fields()[0].Fields() {
			if kv.Name() == "value" {
				valueNode = kv
			}
		}
		out := make(map[string]any, len(m))
		for k, e := range m {
			if valueNode == nil {
				out[k] = e
				continue
			}
			out[k] = jsonValue(e, valueNode, path+"."+k)
		}
		return out
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for _, field := range node.Fields() {
		e, ok := m[field.Name()]
		if !ok {
			continue
		}
		p := field.Name()
		if path != "" {
			p = path + "." + p
		}
		if field.Repeated() {
			if list, ok := e.([]any); ok {
				elems := make([]any, len(list))
				for i, x := range list {
					elems[i] = jsonValue(x, parquet.Required(field), p)
				}
				out[field.Name()] = elems
				continue
			}
		}
		out[field.Name()] = jsonValue(e, field, p)
	}
	return out
}

// leafValue converts a leaf value by its logical type.
func leafValue(v any, node parquet.Node) any {
	lt := node.Type().LogicalType()
	if lt != nil {
		switch t := lt.Value.(type) {
		case *format.TimestampType:
			n, ok := v.(int64)
			if !ok {
				return v
			}
			var ts time.Time
			switch t.Unit.Value.(type) {
			case *format.MilliSeconds:
				ts = time.UnixMilli(n)
			case *format.MicroSeconds:
				ts = time.UnixMicro(n)
			default:
				ts = time.Unix(0, n)
			}
			return ts.UTC()
		case *format.JsonType:
			if b, ok := v.([]byte); ok && json.Valid(b) {
				return json.RawMessage(bytes.Clone(b))
			}
		}
	}
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

func isParquetList(node parquet.Node) bool {
	lt := node.Type().LogicalType()
	if lt == nil {
		return false
	}
	_, ok := lt.Value.(*format.ListType)
	if !ok {
		return false
	}
	fs := node.Fields()
	return len(fs) == 1 && !fs[0].Leaf() && fs[0].Repeated() && len(fs[0].Fields()) == 1
}

func isParquetMap(node parquet.Node) bool {
	lt := node.Type().LogicalType()
	if lt == nil {
		return false
	}
	_, ok := lt.Value.(*format.MapType)
	if !ok {
		return false
	}
	fs := node.Fields()
	return len(fs) == 1 && !fs[0].Leaf() && fs[0].Repeated()
}
