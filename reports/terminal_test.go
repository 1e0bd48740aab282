package reports

import (
	"strings"
	"testing"
)

func TestBannerGoesWhereTheFormatAllows(t *testing.T) {
	for f, want := range map[Format][2]string{
		FormatTable:    {"filtered\n\n", ""},
		FormatMarkdown: {"filtered\n\n", ""},
		FormatTSV:      {"", "apeval: filtered\n"},
		FormatJSON:     {"", "apeval: filtered\n"},
	} {
		var out, errOut strings.Builder
		Banner(&out, &errOut, f, "filtered")
		if out.String() != want[0] || errOut.String() != want[1] {
			t.Errorf("%s: out %q, err %q; want %q, %q", f, out.String(), errOut.String(), want[0], want[1])
		}
	}
}
