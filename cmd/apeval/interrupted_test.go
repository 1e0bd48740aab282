package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

// After Ctrl-C, stderr said only "interrupted; 43 finished cases are in
// DIR". Cases are written in the dataset's order while sessions run in
// parallel: on a real import with a slow judge, 49 calls had been answered
// but 4 were in the 43 cases written. The rest are in the cache (--resume
// then re-sent 100 of 137, not 133) or, with --no-cache, lost; stderr now
// says which and how to continue.
func TestInterruptedSaysHowToContinue(t *testing.T) {
	for _, c := range []struct {
		st      replay.RunStats
		noCache bool
		cache   string
		want    string
	}{
		{replay.RunStats{Cases: 43, Calls: 49}, false, "", "apeval run --resume run-dir continues; the judges' answers already received, for later cases too, are in the cache and are not asked again"},
		{replay.RunStats{Cases: 43, Calls: 49}, true, "", "with --no-cache the judges' answers to calls of later cases were not kept; apeval run --resume run-dir continues, asking them again"},
		{replay.RunStats{Cases: 11}, true, "", ""},
		// A run with a cache of its own (docs/judges.md#resume): a resume
		// without --cache read the default cache and re-sent the calls of
		// later cases (by hand on the sample: 176 re-sent, 121 with --cache).
		{replay.RunStats{Cases: 1152, Calls: 1200}, false, "/tmp/my cache", "apeval run --resume run-dir --cache '/tmp/my cache' continues; the judges' answers already received, for later cases too, are in that cache and are not asked again (without --cache they would be)"},
	} {
		var errOut bytes.Buffer
		err := interrupted(c.st, "run-dir", c.noCache, c.cache, IO{Err: &errOut})
		if e, ok := err.(exitCodeError); !ok || e.code != exitInterrupted {
			t.Errorf("%+v: error %v, want exit 130", c.st, err)
		}
		lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
		if lines[0] != "apeval: interrupted; "+strconv.FormatInt(c.st.Cases, 10)+" finished cases are in run-dir" {
			t.Errorf("first line %q", lines[0])
		}
		switch {
		case c.want == "" && len(lines) != 1:
			t.Errorf("%+v: %q; want no more when no call was answered", c.st, errOut.String())
		case c.want != "" && (len(lines) != 2 || lines[1] != "apeval: "+c.want):
			t.Errorf("%+v (no-cache %v): %q\nwant the line %q", c.st, c.noCache, errOut.String(), c.want)
		}
	}
}
