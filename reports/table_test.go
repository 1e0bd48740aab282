package reports

import (
	"strings"
	"testing"
)

func TestTableFormats(t *testing.T) {
	tab := func() *Table {
		t := NewTable("rule", "cases", "class")
		t.Add("r1", "1", "a → b")
		t.Add("rule-2", "12", "x")
		return t
	}
	for _, c := range []struct {
		table *Table
		f     Format
		want  string
	}{
		{tab().Plain(), FormatTable, "rule    cases  class\nr1      1      a → b\nrule-2  12     x\n"},
		{tab(), FormatTSV, "rule\tcases\tclass\nr1\t1\ta → b\nrule-2\t12\tx\n"},
		{tab(), FormatCSV, "rule,cases,class\nr1,1,a → b\nrule-2,12,x\n"},
		{tab(), FormatTable, " rule    cases  class\n r1      1      a → b\n rule-2  12     x\n"},
	} {
		var b strings.Builder
		if err := c.table.Write(&b, c.f); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.f, b.String(), c.want)
		}
	}
}
