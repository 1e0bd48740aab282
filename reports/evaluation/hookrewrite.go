package evaluation

import (
	"fmt"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// hookRewrites counts, in a comparison with auto mode's recorded decisions,
// the cases whose input a PreToolUse hook changed before auto mode judged
// it (provenance.hook_updated_input): the vendor judged what ran, the
// other judge the model's input, so the two sides judged different inputs.
type hookRewrites struct {
	vendor string          // the pair's auto-mode judge, as the comparison knows it
	ids    map[string]bool // cases rewritten that carry the vendor's recording
	note   string          // why the datasets could not be read, "" when they were
	// judged: the rewritten cases the vendor's recording answered; other:
	// those the other judge has a result on; compared: those either judge
	// of the pair has a result on (what --without-hook-rewritten leaves out).
	judged, other, compared map[string]bool
}

// newHookRewrites reads the datasets the runs name (the way DescribeFrom
// does) when one judge of the pair is auto mode's recorded decisions; nil
// when neither is.
func newHookRewrites(infos []rundir.RunInfo, baseline, candidate string, urls datasets.Opener) *hookRewrites {
	vendor := ""
	for _, j := range []string{baseline, candidate} {
		if reports.IsAutoMode(j) {
			vendor = j
			break
		}
	}
	if vendor == "" {
		return nil
	}
	h := &hookRewrites{vendor: vendor, ids: map[string]bool{}, judged: map[string]bool{}, other: map[string]bool{}, compared: map[string]bool{}}
	seen := map[string]bool{}
	for _, in := range infos {
		key := ""
		for _, d := range in.Datasets {
			key += d.Name + "\x00" + d.SHA256 + "\x00"
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		r, why := openDatasets(in, urls)
		if r == nil {
			h.note = why
			return h
		}
		for r.Scan() {
			rec := r.Record()
			if rec.Err != nil || rec.Case == nil || h.ids[rec.Case.ID] {
				continue
			}
			if HookRewrittenFor(vendor, rec.Case) {
				h.ids[rec.Case.ID] = true
			}
		}
		_ = r.Close()
	}
	return h
}

// see counts a result of the comparison (after the pair renamed it).
func (h *hookRewrites) see(r *replay.Result, baseline, candidate string) {
	if h == nil || !h.ids[r.CaseID] {
		return
	}
	h.compared[r.CaseID] = true
	switch r.Judge {
	case h.vendor:
		if r.JudgeCalled {
			h.judged[r.CaseID] = true
		}
	case baseline, candidate:
		h.other[r.CaseID] = true
	}
}

// canLeaveOut says why the cases cannot be left out: neither judge is
// auto mode, or the datasets cannot be read to find them.
func (h *hookRewrites) canLeaveOut(pair reports.JudgePair) error {
	switch {
	case h == nil:
		return fmt.Errorf("--without-hook-rewritten: neither %s nor %s is auto mode's recorded decisions (%s…); only they were made on inputs a hook changed",
			pair.Baseline, pair.Candidate, reports.AutoModePrefix)
	case h.note != "":
		return fmt.Errorf("--without-hook-rewritten: the cases a PreToolUse hook changed cannot be found: %s", h.note)
	}
	return nil
}

// Warning is the comparison's warning, "" when no compared case carries
// auto mode's decision on a changed input. leftOut: the comparison left
// them out (--without-hook-rewritten).
func (h *hookRewrites) Warning(leftOut bool) string {
	if h == nil {
		return ""
	}
	if h.note != "" {
		return fmt.Sprintf("%s judged the input a PreToolUse hook changed where one did (provenance.hook_updated_input), the other judge the model's input; "+
			"the cases where that happened cannot be counted: %s", h.vendor, h.note)
	}
	n := 0
	for id := range h.judged {
		if h.other[id] {
			n++
		}
	}
	if leftOut && len(h.compared) > 0 {
		return fmt.Sprintf("%d cases left out (--without-hook-rewritten): a PreToolUse hook changed their input (provenance.hook_updated_input) and %s's decision on them was made on what ran; "+
			"every figure here is on the cases where both judges had the same input", len(h.compared), h.vendor)
	}
	if n == 0 || leftOut {
		return ""
	}
	return fmt.Sprintf("%d compared cases carry %s's decision on an input a PreToolUse hook changed (provenance.hook_updated_input): "+
		"it judged what ran, the other judge the model's input, so a disagreement on them may come from the input alone; "+
		"compare --without-hook-rewritten leaves them out; apeval diff --out DIR shows the input each side judged in diff.html", n, h.vendor)
}

// HookRewritten are the cases of the runs whose input a PreToolUse hook
// changed and that carry auto mode's recorded decision (what compare
// counts), for apeval diff to mark. vendor is the pair's auto-mode judge
// ("" when neither baseline nor candidate is: then ids is nil); note says
// why the datasets run.json names could not be read ("" when they were).
func HookRewritten(infos []rundir.RunInfo, baseline, candidate string, urls datasets.Opener) (vendor string, ids map[string]bool, note string) {
	h := newHookRewrites(infos, baseline, candidate, urls)
	if h == nil {
		return "", nil, ""
	}
	return h.vendor, h.ids, h.note
}

// HookRewrittenFor reports whether c's input was changed by a PreToolUse
// hook (provenance.hook_updated_input) and c carries the recorded decision
// of vendor, an auto-mode judge's identity (possibly renamed "ID [dir]").
func HookRewrittenFor(vendor string, c *datasets.Case) bool {
	if _, ok := c.Provenance["hook_updated_input"]; !ok {
		return false
	}
	// A second run's colliding identity is renamed "ID [dir]"; the
	// recording's name is the identity's model part.
	name := strings.TrimPrefix(vendor, "recorded/")
	if i := strings.Index(name, " ["); i >= 0 {
		name = name[:i]
	}
	for _, rc := range c.Recorded {
		if rc.Judge == name {
			return true
		}
	}
	return false
}
