package reports

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/apeval/apeval/metrics"
)

// tagged maps the parquet name of every `parquet`-tagged field of t
// (untagged structs walked into, as rowColumns does) to its JSON key.
func tagged(t *testing.T, typ reflect.Type) map[string]string {
	out := map[string]string{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, ok := f.Tag.Lookup("parquet")
		if !ok && f.Type.Kind() == reflect.Struct {
			for k, v := range tagged(t, f.Type) {
				out[k] = strings.Split(f.Tag.Get("json"), ",")[0] + "." + v
			}
			continue
		}
		if !ok {
			t.Errorf("%s.%s has no parquet tag: every figure field is a column, or says parquet:\"-\"", typ, f.Name)
		}
		if tag == "-" {
			continue
		}
		js := strings.Split(f.Tag.Get("json"), ",")[0]
		if js == "" || js == "-" {
			t.Errorf("%s.%s is a Parquet column without a JSON key", typ, f.Name)
		}
		out[strings.Split(tag, ",")[0]] = js
	}
	return out
}

// valueText is a Parquet value as text() shows the column's Go value.
func valueText(v parquet.Value) string {
	switch {
	case v.IsNull():
		return ""
	case v.Kind() == parquet.ByteArray:
		return v.String()
	case v.Kind() == parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case v.Kind() == parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	}
	return strconv.FormatInt(v.Int64(), 10)
}

// readBack reads a Parquet file's column names and rows as text.
func readBack(t *testing.T, b []byte) ([]string, [][]string) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range f.Schema().Columns() {
		names = append(names, strings.Join(c, "."))
	}
	r := parquet.NewReader(f)
	var rows [][]string
	buf := make([]parquet.Row, 1)
	for {
		n, err := r.ReadRows(buf)
		if n == 0 {
			break
		}
		row := make([]string, len(names))
		for _, v := range buf[0] {
			row[v.Column()] = valueText(v)
		}
		rows = append(rows, row)
		if err != nil {
			break
		}
	}
	return names, rows
}

// TestOneFigureDefinition checks that metrics.parquet, compare.parquet,
// summary.json and the per-rule TSV all come from the one definition of a
// figure row (the `parquet` and `json` tags of metrics.Row and
// metrics.Figure): the file written has exactly the definition's columns,
// each value read back is the definition's value, every column has its
// JSON key with the same value, and the TSV's columns and cells are
// metrics.parquet's. A field added to Row without a tag, or a writer
// that declares its own copy of a figure, fails here.
func TestOneFigureDefinition(t *testing.T) {
	rowCols := tagged(t, reflect.TypeFor[metrics.Row]())
	figCols := tagged(t, reflect.TypeFor[metrics.Figure]())

	rep := fixtureReport()
	s := rep.Summary
	for _, sampled := range []bool{false, true} {
		cols := metricsColumns
		source := ""
		if sampled {
			source = "weak"
			s.Sample = &metrics.SampleInfo{}
			s.Judges[0].Rules[0].Sample = &metrics.RowSample{Sampled: 3, Census: 2, Dropped: 1, TP: 1.5}
			cols = sampledMetricsColumns
		}
		var b bytes.Buffer
		if err := WriteMetricsParquet(&b, s, source); err != nil {
			t.Fatal(err)
		}
		names, rows := readBack(t, b.Bytes())
		if want := columnNames(cols); !slices.Equal(names, want) {
			t.Fatalf("metrics.parquet columns:\n got %v\nwant %v", names, want)
		}
		for name := range rowCols {
			if !slices.Contains(names, name) {
				t.Errorf("metrics.Row's column %s is not in metrics.parquet", name)
			}
		}
		var want []metricsRow
		for _, j := range s.Judges {
			want = append(want, metricsRow{j, j.Total, "*", "*", source})
			for _, r := range j.Rules {
				want = append(want, metricsRow{j, r, "*", "*", source})
			}
		}
		if len(rows) != len(want) {
			t.Fatalf("metrics.parquet has %d rows, want %d", len(rows), len(want))
		}
		for i, m := range want {
			for k, c := range cols {
				if got, w := rows[i][k], text(c.get(m)); got != w {
					t.Errorf("row %d (%s %s) column %s: file has %q, the definition %q", i, m.j.Judge, m.r.RuleID, c.name, got, w)
				}
			}
			checkJSON(t, m, rowCols)
		}
	}
	s.Sample = nil

	// compare.parquet: every Figure column, each value the Figure's.
	var b bytes.Buffer
	if err := WriteComparisonParquet(&b, s.Comparisons, 0.95, "weak"); err != nil {
		t.Fatal(err)
	}
	names, rows := readBack(t, b.Bytes())
	if want := columnNames(compareColumns); !slices.Equal(names, want) {
		t.Fatalf("compare.parquet columns:\n got %v\nwant %v", names, want)
	}
	for name := range figCols {
		if !slices.Contains(names, name) {
			t.Errorf("metrics.Figure's column %s is not in compare.parquet", name)
		}
	}
	if len(rows) == 0 {
		t.Fatal("compare.parquet has no rows")
	}
	c := s.Comparisons[0]
	rc := comparisonRows(c)[0]
	first := compareRow{c, "*", "*", rc.RuleID, &rc.Figures[0], 0.95, "weak"}
	for k, col := range compareColumns {
		if got, w := rows[0][k], text(col.get(first)); got != w {
			t.Errorf("compare.parquet row 0 column %s: file has %q, the definition %q", col.name, got, w)
		}
	}

	// The TSV: metrics.parquet's columns, by name, with the same cells.
	for _, repeats := range []bool{false, true} {
		if repeats {
			s.Judges[0].Total.FlipPairs = 2
		}
		var out bytes.Buffer
		if err := rep.WriteTables(&out, FormatTSV); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		header := strings.Split(lines[0], "\t")
		tsv := tsvColumns(repeats)
		for i, h := range header {
			if h == "class" {
				h = "rule_class"
			}
			if h != tsv[i].name || !slices.Contains(columnNames(metricsColumns), h) {
				t.Errorf("TSV column %d is %q: not metrics.parquet's %q", i, header[i], tsv[i].name)
			}
		}
		for _, c := range added(metricsColumns, metricsOrder) {
			if !slices.Contains(header, c.name) {
				t.Errorf("column %s, added to metrics.Row, is not in the TSV", c.name)
			}
		}
		total := strings.Split(lines[1], "\t")
		m := metricsRow{s.Judges[0], s.Judges[0].Total, "*", "*", ""}
		for i, c := range tsv {
			if total[i] != text(c.get(m)) {
				t.Errorf("TSV %s of the first total row is %q, the definition %q", c.name, total[i], text(c.get(m)))
			}
		}
	}
}

// checkJSON checks that every Row column of m has its JSON key in the
// row's summary.json object, with the column's value.
func checkJSON(t *testing.T, m metricsRow, rowCols map[string]string) {
	t.Helper()
	b, err := json.Marshal(m.r)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		t.Fatal(err)
	}
	for _, c := range metricsColumns {
		key, ok := rowCols[c.name]
		if !ok || (c.name == "rule_version" && m.r.RuleID == metrics.AllRules) {
			continue // not a Row column (judge, slice, status), or null by rule in the file
		}
		var v any = obj
		for k := range strings.SplitSeq(key, ".") {
			v = v.(map[string]any)[k]
		}
		want := text(c.get(m))
		var got string
		switch x := v.(type) {
		case nil:
			// null, or left out (omitempty) when zero
			if want != "" && want != "0" {
				t.Errorf("%s: %s is %q in the file but absent from JSON", m.r.RuleID, key, want)
			}
			continue
		case string:
			got = x
		case json.Number:
			f, _ := x.Float64()
			got = strconv.FormatFloat(f, 'g', -1, 64)
			if c.typ.Kind() != reflect.Pointer || c.typ.Elem().Kind() != reflect.Float64 {
				got = x.String()
			}
		default:
			t.Fatalf("%s: %T", key, v)
		}
		if got != want {
			t.Errorf("%s %s: JSON %s is %q, metrics.parquet %q", m.j.Judge, m.r.RuleID, key, got, want)
		}
	}
}

func columnNames[T any](cols []column[T]) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}

func BenchmarkWriteMetricsParquet(b *testing.B) {
	s := fixtureSummary()
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteMetricsParquet(io.Discard, s, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteComparisonParquet(b *testing.B) {
	s := fixtureSummary()
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteComparisonParquet(io.Discard, s.Comparisons, 0.95, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTSV(b *testing.B) {
	rep := fixtureReport()
	b.ReportAllocs()
	for b.Loop() {
		if err := rep.WriteTables(io.Discard, FormatTSV); err != nil {
			b.Fatal(err)
		}
	}
}
