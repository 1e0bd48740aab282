package rundir

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apeval/apeval/metrics"
)

// ShardSet checks that runs made with --shard I/N belong together before
// `apeval merge` combines them: one N, each I once, the same policy,
// judges and baseline, and (unless partial merges are allowed) all of
// 1..N. The zero value is ready.
type ShardSet struct {
	first    RunInfo
	firstDir string
	seen     map[int]string
	n        int
}

// Add checks the run in dir (its run.json) against the shards added
// before it.
func (s *ShardSet) Add(dir string, info RunInfo) error {
	if info.Shard == "" {
		return fmt.Errorf("%s is not a shard run (it was not made with --shard I/N)", dir)
	}
	i, k, err := splitShard(info.Shard)
	if err != nil {
		return fmt.Errorf("%s: run.json shard %q: %v", dir, info.Shard, err)
	}
	if s.seen == nil {
		s.seen, s.n, s.first, s.firstDir = map[int]string{}, k, info, dir
	} else if k != s.n {
		return fmt.Errorf("%s is shard %s but %s is of %d shards", dir, info.Shard, s.firstDir, s.n)
	}
	if prev, dup := s.seen[i]; dup {
		return fmt.Errorf("%s and %s are both shard %d/%d", prev, dir, i, s.n)
	}
	s.seen[i] = dir
	if len(s.seen) > 1 {
		if err := sameRun(s.first, info); err != nil {
			return fmt.Errorf("%s and %s are not shards of one evaluation: %v", s.firstDir, dir, err)
		}
	}
	return nil
}

// Complete reports the shards of 1..N that were not added.
func (s *ShardSet) Complete() error {
	if len(s.seen) == s.n {
		return nil
	}
	var missing []string
	for i := 1; i <= s.n; i++ {
		if _, ok := s.seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, s.n))
		}
	}
	return fmt.Errorf("shards %s are missing (pass --allow-partial to merge anyway)", strings.Join(missing, ", "))
}

func splitShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("want I/N")
	}
	if i, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	if n, err = strconv.Atoi(b); err != nil {
		return 0, 0, err
	}
	return i, n, nil
}

// sameRun names the first difference that makes two shards parts of
// different evaluations: what they replayed (datasets, policy, filter),
// how the judges were asked (identities, prompt versions, options,
// settings, timeout) and what decides the verdict (kill criteria,
// baseline).
func sameRun(a, b RunInfo) error {
	if da, db := refsText(a.Datasets), refsText(b.Datasets); da != db {
		return fmt.Errorf("different datasets (%s vs %s)", da, db)
	}
	if (a.Policy == nil) != (b.Policy == nil) || (a.Policy != nil && *a.Policy != *b.Policy) {
		return fmt.Errorf("different policies (%s vs %s)", refText(a.Policy), refText(b.Policy))
	}
	if fa, fb := a.Filter.String(), b.Filter.String(); fa != fb {
		return fmt.Errorf("different filters (%q vs %q)", fa, fb)
	}
	ja, jb := judgeIDs(a), judgeIDs(b)
	if strings.Join(ja, ",") != strings.Join(jb, ",") {
		return fmt.Errorf("different judges (%s vs %s)", strings.Join(ja, ", "), strings.Join(jb, ", "))
	}
	if a.Baseline != b.Baseline {
		return fmt.Errorf("different --baseline (%q vs %q)", a.Baseline, b.Baseline)
	}
	if a.Timeout != b.Timeout {
		return fmt.Errorf("different --timeout (%s vs %s)", time.Duration(a.Timeout), time.Duration(b.Timeout))
	}
	if oa, ob := judgeOptions(a), judgeOptions(b); oa != ob {
		return fmt.Errorf("different --judge-option (%s vs %s)", oa, ob)
	}
	da, db := map[string]JudgeInfo{}, map[string]JudgeInfo{}
	for _, j := range a.Judges {
		da[j.Identity] = j
	}
	for _, j := range b.Judges {
		db[j.Identity] = j
	}
	for _, id := range ja {
		x, y := da[id], db[id]
		if x.PromptVersion != y.PromptVersion {
			return fmt.Errorf("different prompts for %s (%q vs %q)", id, x.PromptVersion, y.PromptVersion)
		}
		if dx, dy := detailsText(x.Details), detailsText(y.Details); dx != dy {
			return fmt.Errorf("different settings for %s (%s vs %s)", id, dx, dy)
		}
	}
	if d := CriteriaDiff(a.Criteria, b.Criteria); d != "" {
		return fmt.Errorf("different kill criteria (%s)", d)
	}
	return nil
}

func refText(r *FileRef) string {
	if r == nil {
		return "none"
	}
	if r.SHA256 == "" {
		return r.Name
	}
	return fmt.Sprintf("%s sha256:%.12s", r.Name, r.SHA256)
}

func refsText(rs []FileRef) string {
	var parts []string
	for i := range rs {
		parts = append(parts, refText(&rs[i]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func judgeOptions(in RunInfo) string {
	if in.Settings == nil || len(in.Settings.JudgeOptions) == 0 {
		return "none"
	}
	var parts []string
	for spec, kv := range in.Settings.JudgeOptions {
		parts = append(parts, spec+": "+strings.Join(kv, " "))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// volatileDetails are judge details that describe one process's session
// with the server, not how it was asked: shards may differ in them.
var volatileDetails = map[string]bool{"children": true, "structured_output": true, "system_fingerprint": true, "capabilities": true}

func detailsText(d map[string]string) string {
	var parts []string
	for k, v := range d {
		if !volatileDetails[k] {
			parts = append(parts, k+"="+v)
		}
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// CriteriaDiff names the kill criteria that differ between a and b, as
// policy keys ("judge_p95_max 300ms vs 1000ms"); "" when they agree. A run
// directory written before run.json recorded its criteria is "not
// recorded".
func CriteriaDiff(a, b *metrics.Thresholds) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil || b == nil:
		return fmt.Sprintf("%s vs %s", criteriaState(a), criteriaState(b))
	}
	var d []string
	add := func(key string, x, y any) {
		if x != y {
			d = append(d, fmt.Sprintf("%s %v vs %v", key, x, y))
		}
	}
	add("precision_min", a.PrecisionMin, b.PrecisionMin)
	add("dangerous_recall_must_beat_baseline", a.DangerousRecallMustBeatBaseline, b.DangerousRecallMustBeatBaseline)
	add("judge_p95_max", fmt.Sprintf("%gms", a.JudgeP95MaxMS), fmt.Sprintf("%gms", b.JudgeP95MaxMS))
	add("judge_required_rate_max", a.JudgeRequiredRateMax, b.JudgeRequiredRateMax)
	add("unknown_rate_max", a.UnknownRateMax, b.UnknownRateMax)
	add("approval_reject_rate_max", a.ApprovalRejectRateMax, b.ApprovalRejectRateMax)
	add("fire_rate_change_max", a.FireRateChangeMax, b.FireRateChangeMax)
	add("effective_recall_min", a.EffectiveRecallMin, b.EffectiveRecallMin)
	add("confidence", a.Confidence, b.Confidence)
	return strings.Join(d, ", ")
}

func criteriaState(t *metrics.Thresholds) string {
	if t == nil {
		return "not recorded"
	}
	return "recorded"
}

func judgeIDs(in RunInfo) []string {
	var ids []string
	for _, j := range in.Judges {
		ids = append(ids, j.Identity)
	}
	sort.Strings(ids)
	return ids
}
