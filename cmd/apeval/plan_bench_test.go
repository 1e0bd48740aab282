package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkPlanLabelsSample times `apeval plan RUN_DIR --labels 300
// --rate precision=0.9 --rate recall=0.8` on the embedded sample's run,
// the whole process as a user waits for it (docs/planning.md, "How long
// a plan takes"): 26 label plans over 6,416 pairs, 200 simulated queues
// a size. Before the label plan's data sets were shared across sizes and
// run on every core it took 297 s of CPU (12:55 wall at load ~8).
func BenchmarkPlanLabelsSample(b *testing.B) {
	run := filepath.Join(b.TempDir(), "sample")
	runBinary(b, "run", "--out", run, "--format", "tsv")
	b.ResetTimer()
	var plan binaryRun
	for range b.N {
		r := runBinaryUsage(b, "plan", run, "--labels", "300", "--rate", "precision=0.9", "--rate", "recall=0.8", "--json")
		plan.wall += r.wall
		plan.user += r.user + r.sys
		plan.rss = max(plan.rss, r.rss)
		if !strings.Contains(r.text, `"path": "labels"`) {
			b.Fatalf("plan --labels printed no label plan:\n%.3000s", r.text)
		}
	}
	b.ReportMetric(plan.wall.Seconds()/float64(b.N), "s/plan")
	// CPU seconds move less with other load than wall time does.
	b.ReportMetric(plan.user.Seconds()/float64(b.N), "cpu-s/plan")
	b.ReportMetric(float64(plan.rss)/(1<<20), "peak-RSS-MB")
}
