package runplan

import (
	"path/filepath"
	"strings"
	"testing"
)

// A run to a bucket: the flat layout writes to the prefix itself, the hive
// layout to the run's partition below it; the run is written in the
// temporary directory first, and run.json records the bucket, masked.
func TestRunToBucketDirectories(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		layout, want string
	}{
		{"flat", "s3://bucket/runs/nightly?region=eu-west-1&aws_session_token=AbC123dEf456"}, // as given
		{"hive", "s3://bucket/runs/nightly/run_id=r7?aws_session_token=AbC123dEf456&region=eu-west-1"},
	} {
		st := planFor(t, func(o *Options) {
			o.Out, o.OutLayout, o.RunID = "s3://bucket/runs/nightly?region=eu-west-1&aws_session_token=AbC123dEf456", tc.layout, "r7"
		})
		if !st.Plan.ToBucket() {
			t.Fatalf("%s: not to a bucket", tc.layout)
		}
		remote, err := st.Remote()
		if err != nil {
			t.Fatal(err)
		}
		if remote != tc.want {
			t.Errorf("%s: remote %q, want %q", tc.layout, remote, tc.want)
		}
		if st.RemoteOut == "" || strings.Contains(st.RemoteOut, "AbC123dEf456") || !strings.Contains(st.RemoteOut, "s3://bucket/runs/nightly") {
			t.Errorf("%s: run.json's out %q", tc.layout, st.RemoteOut)
		}
		tmp := t.TempDir()
		local := st.StageIn(tmp)
		want := filepath.Join(tmp, "run")
		if tc.layout == "hive" {
			want = filepath.Join(want, "run_id=r7")
		}
		if local != want || st.Out != want || st.Info(Run{}).Settings.Out != st.RemoteOut {
			t.Errorf("%s: staged in %q (out %q), want %q; settings.out %q", tc.layout, local, st.Out, want, st.Info(Run{}).Settings.Out)
		}
	}
	if _, err := BucketRunDir("s3://", "flat", "r1"); err == nil {
		t.Errorf("a URL without a bucket is accepted")
	}
}
