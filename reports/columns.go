package reports

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// column is one column of a machine-format table (metrics.parquet,
// compare.parquet, the TSV): its name, the Go type and Parquet tag
// options of its values, and how a value is read from a row of T. The
// figures' columns are not written here: rowColumns reads them off the
// `parquet` tags of the figure types (metrics.Row, metrics.Figure), the
// one definition of a figure's row; only the columns that say where a row
// belongs (judge, slice, …) are declared beside each writer.
type column[T any] struct {
	name string
	typ  reflect.Type // a value's type: int64, float64, string, bool, *int32, *int64, *float64 or *string
	opts string       // Parquet tag options after the name ("optional,dict")
	get  func(T) any  // a value of typ
}

// rowColumns lists the columns of the `parquet`-tagged fields of the
// struct that at returns a pointer to, in field order; a field tagged "-"
// is not a column, and an untagged struct field's own fields are (as
// metrics.UnknownBreakdown's are). Values convert to their column's type:
// an optional string is null when empty, and an int is an optional int32
// that is null where null(x) says the field has no meaning (a total row's
// rule version).
func rowColumns[T any, R any](at func(T) *R, null func(T) bool) []column[T] {
	var out []column[T]
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			idx := append(slices.Clone(index), i)
			tag, ok := f.Tag.Lookup("parquet")
			switch {
			case !f.IsExported() || tag == "-":
				continue
			case !ok && f.Type.Kind() == reflect.Struct:
				walk(f.Type, idx)
				continue
			case !ok:
				panic(fmt.Sprintf("reports: %s.%s has no parquet tag", t, f.Name))
			}
			name, opts, _ := strings.Cut(tag, ",")
			out = append(out, fieldColumn(name, opts, f.Type, idx, at, null))
		}
	}
	walk(reflect.TypeFor[R](), nil)
	return out
}

// fieldColumn is the column of the field at idx.
func fieldColumn[T any, R any](name, opts string, ft reflect.Type, idx []int, at func(T) *R, null func(T) bool) column[T] {
	field := func(x T) reflect.Value { return reflect.ValueOf(at(x)).Elem().FieldByIndex(idx) }
	optional := slices.Contains(strings.Split(opts, ","), "optional")
	c := column[T]{name: name, opts: opts}
	switch {
	case ft.Kind() == reflect.String && optional:
		c.typ = reflect.TypeFor[*string]()
		c.get = func(x T) any { return optStr(field(x).String()) }
	case ft.Kind() == reflect.String:
		c.typ = reflect.TypeFor[string]()
		c.get = func(x T) any { return field(x).String() }
	case ft.Kind() == reflect.Int:
		c.typ = reflect.TypeFor[*int32]()
		c.get = func(x T) any {
			if null != nil && null(x) {
				return (*int32)(nil)
			}
			return new(int32(field(x).Int()))
		}
	default: // int64, bool and pointers are written as they are
		c.typ = ft
		c.get = func(x T) any { return field(x).Interface() }
	}
	return c
}

// ordered puts the columns named in first in that order, then every other
// column in its own order (added). first freezes the order of a file's
// columns as they were published; a column added later goes at the end of
// every file.
func ordered[T any](cols []column[T], first []string) []column[T] {
	return append(pick(cols, first), added(cols, first)...)
}

// pick is the columns of those names, in that order.
func pick[T any](cols []column[T], names []string) []column[T] {
	out := make([]column[T], 0, len(names))
	for _, n := range names {
		i := slices.IndexFunc(cols, func(c column[T]) bool { return c.name == n })
		if i < 0 {
			panic("reports: no column " + n)
		}
		out = append(out, cols[i])
	}
	return out
}

// added is the columns not named in frozen, in their order.
func added[T any](cols []column[T], frozen []string) []column[T] {
	var out []column[T]
	for _, c := range cols {
		if !slices.Contains(frozen, c.name) {
			out = append(out, c)
		}
	}
	return out
}

// writeParquet writes rows as a Parquet file with one column per entry of
// cols, in order, under the schema name name.
func writeParquet[T any](w io.Writer, name string, cols []column[T], rows []T) error {
	fields := make([]reflect.StructField, len(cols))
	for i, c := range cols {
		tag := c.name
		if c.opts != "" {
			tag += "," + c.opts
		}
		fields[i] = reflect.StructField{Name: "C" + strconv.Itoa(i), Type: c.typ, Tag: reflect.StructTag(`parquet:"` + tag + `"`)}
	}
	st := reflect.StructOf(fields)
	schema := parquet.NewSchema(name, parquet.SchemaOf(reflect.New(st).Interface()))
	pw := parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd), parquet.CreatedBy("apeval", "", ""))
	v := reflect.New(st).Elem()
	for _, r := range rows {
		for i, c := range cols {
			v.Field(i).Set(reflect.ValueOf(c.get(r)))
		}
		if err := pw.Write(v.Addr().Interface()); err != nil {
			return err
		}
	}
	return pw.Close()
}

// text is a value as the TSV shows it: full precision, "" for null.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *string:
		if x == nil {
			return ""
		}
		return *x
	case int64:
		return itoa(x)
	case *int64:
		if x == nil {
			return ""
		}
		return itoa(*x)
	case *int32:
		if x == nil {
			return ""
		}
		return itoa(int64(*x))
	case *float64:
		return full(x)
	case float64:
		return full(&x)
	case bool:
		return strconv.FormatBool(x)
	}
	panic(fmt.Sprintf("reports: no text for %T", v))
}
