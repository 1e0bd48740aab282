package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports/rundir"
)

// TestWriteGate: gate's lines are every judge's reasons, then the
// verdict line; a filtered run's header and a partial run's note go to
// stderr, the verdict line only to stdout.
func TestWriteGate(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	var reasons bytes.Buffer
	if err := rep.WriteReasons(&reasons); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := rep.WriteGate(&out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := reasons.String() + "verdict\tNO-GO\n"; out.String() != want || errOut.Len() != 0 {
		t.Errorf("out:\n%s\nwant:\n%s\nerr: %q", out.String(), want, errOut.String())
	}
	rep.Run.Partial = "budget"
	rep.Run.Filter = &rundir.Filter{Limit: 3}
	out.Reset()
	if err := rep.WriteGate(&out, &errOut); err != nil {
		t.Fatal(err)
	}
	e := errOut.String()
	if !strings.HasPrefix(e, "apeval: filtered run (first 3 sessions): not the full dataset\n") || !strings.HasSuffix(e, "apeval: the run is partial (budget): no verdict gates on it\n") {
		t.Errorf("stderr: %q", e)
	}
	if !strings.HasSuffix(out.String(), "verdict\tNO-GO\n") {
		t.Errorf("stdout: %q", out.String())
	}
	// What --labels matched goes to stderr after the header (gate printed
	// it nowhere: it prints no table notes).
	rep.Summary.LabelNotes = []string{"--labels: 84 of 168 labels match a (case, rule) pair of these results; …"}
	out.Reset()
	errOut.Reset()
	if err := rep.WriteGate(&out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := "apeval: filtered run (first 3 sessions): not the full dataset\napeval: warning: --labels: 84 of 168 labels match a (case, rule) pair of these results; …\n"; !strings.HasPrefix(errOut.String(), want) || strings.Contains(out.String(), "--labels") {
		t.Errorf("stderr %q, stdout %q; want stderr to begin %q", errOut.String(), out.String(), want)
	}
}

// TestWriteCompare: the banners lead, the table follows, and stderr
// says when --inconclusive mapped the candidate's INCONCLUSIVE.
func TestWriteCompare(t *testing.T) {
	t.Parallel()
	rep := fixtureReport()
	c := rep.Summary.Compare("recorded/judge-v1", "recorded/judge-v2")
	var table bytes.Buffer
	if err := rep.WriteComparison(&table, c, FormatTable); err != nil {
		t.Fatal(err)
	}
	v := CompareView{Cmp: c, Dirs: []string{"a", "b"}, Infos: []rundir.RunInfo{{}, {Filter: &rundir.Filter{Limit: 3}}}, Banner: "compared on 5 of 9 cases",
		Baseline: "recorded/judge-v1", Candidate: "recorded/judge-v2", Verdict: metrics.VerdictInconclusive}
	var out, errOut bytes.Buffer
	if err := rep.WriteCompare(&out, &errOut, FormatTable, v); err != nil {
		t.Fatal(err)
	}
	head := "compared on 5 of 9 cases\n\nb: " + (&rundir.Filter{Limit: 3}).String() + "\n\n"
	if out.String() != head+table.String() {
		t.Errorf("out:\n%s\nwant:\n%s", out.String(), head+table.String())
	}
	if want := "apeval: INCONCLUSIVE mapped to exit 1 by --inconclusive=fail\n"; errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut.String(), want)
	}
	// TSV: the banners go to stderr; a GO verdict says nothing more.
	out.Reset()
	errOut.Reset()
	v.Verdict = metrics.VerdictGo
	if err := rep.WriteCompare(&out, &errOut, FormatTSV, v); err != nil {
		t.Fatal(err)
	}
	if e := errOut.String(); e != "apeval: compared on 5 of 9 cases\napeval: b: "+(&rundir.Filter{Limit: 3}).String()+"\n" {
		t.Errorf("TSV stderr %q", e)
	}
	// What --labels matched goes to stderr after the banners, as gate
	// says it (compare prints no table notes); stdout is unchanged.
	rep.Summary.LabelNotes = []string{"--labels: all 10 labels match a (case, rule) pair of these results", "--labels: 2 of the 10 labeled pairs were labeled by more than one of 2 people; …"}
	out.Reset()
	errOut.Reset()
	v.Verdict = metrics.VerdictGo
	if err := rep.WriteCompare(&out, &errOut, FormatTable, v); err != nil {
		t.Fatal(err)
	}
	if want := "apeval: warning: --labels: all 10 labels match a (case, rule) pair of these results\napeval: warning: --labels: 2 of the 10 labeled pairs were labeled by more than one of 2 people; …\n"; errOut.String() != want || out.String() != head+table.String() {
		t.Errorf("with label notes: stderr %q, want %q; stdout changed: %v", errOut.String(), want, out.String() != head+table.String())
	}
}
