package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apeval/apeval/replay"
)

// Slice kinds (Config.Slices, `--by`).
const (
	SliceTag      = "tag"
	SliceTool     = "tool"
	SliceCategory = "category"
)

// SliceKinds lists the slice kinds `--by` accepts.
var SliceKinds = []string{SliceTag, SliceTool, SliceCategory}

// NoValue is the slice value of a case without a tool name or category.
const NoValue = "(none)"

// CheckSlices reports the first slice kind that is not one of SliceKinds.
func CheckSlices(kinds []string) error {
	for _, k := range kinds {
		if !slices.Contains(SliceKinds, k) {
			return fmt.Errorf("unknown slice %q (want %s)", k, strings.Join(SliceKinds, ", "))
		}
	}
	return nil
}

// SliceSummary is the summary of the cases of one slice value: the same
// judges, rows and criteria as the whole run, computed on those cases only.
// Slices describe where judges differ; their verdicts do not move the run's.
type SliceSummary struct {
	Slice  string          `json:"slice"`
	Value  string          `json:"value"`
	Judges []*JudgeSummary `json:"judges"`

	sum *Summary
}

type sliceKey struct{ kind, value string }

// addSlices forwards a result to the accumulator of each slice value it
// belongs to (a case with several tags to each tag's).
func (a *Accumulator) addSlices(r *replay.Result) {
	for _, kind := range a.cfg.Slices {
		switch kind {
		case SliceTag:
			for i, t := range r.Tags {
				if !slices.Contains(r.Tags[:i], t) {
					a.slice(kind, t).Add(r)
				}
			}
		case SliceTool:
			a.slice(kind, orNone(r.ToolName)).Add(r)
		case SliceCategory:
			a.slice(kind, orNone(r.Category)).Add(r)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return NoValue
	}
	return s
}

func (a *Accumulator) slice(kind, value string) *Accumulator {
	k := sliceKey{kind, value}
	sub := a.slices[k]
	if sub == nil {
		cfg := a.cfg
		cfg.Slices = nil
		if cfg.CheckDistinct {
			// The whole run's check answers for every slice.
			cfg.CheckDistinct, cfg.DistinctCases, cfg.PairedStreams = false, true, false
		}
		sub = newAcc(cfg, a.pool) // one memory budget and file for all
		sub.isSlice = true
		if a.slices == nil {
			a.slices = map[sliceKey]*Accumulator{}
		}
		a.slices[k] = sub
	}
	return sub
}

// closeSlices closes every slice's accumulator, in Config.Slices order then
// by value.
func (a *Accumulator) closeSlices() []*SliceSummary {
	keys := make([]sliceKey, 0, len(a.slices))
	for k := range a.slices {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y sliceKey) int {
		if c := slices.Index(a.cfg.Slices, x.kind) - slices.Index(a.cfg.Slices, y.kind); c != 0 {
			return c
		}
		return strings.Compare(x.value, y.value)
	})
	out := make([]*SliceSummary, 0, len(keys))
	for _, k := range keys {
		s := a.slices[k].Close()
		out = append(out, &SliceSummary{Slice: k.kind, Value: k.value, Judges: s.Judges, sum: s})
	}
	a.slices = nil
	return out
}

// sliceComparisons compares the two judges within every slice value.
func (s *Summary) sliceComparisons(baseline, candidate string) []SliceComparison {
	var out []SliceComparison
	for _, sl := range s.Slices {
		var c *Comparison
		for _, x := range sl.sum.Comparisons {
			if x.Baseline == baseline && x.Candidate == candidate {
				c = x
			}
		}
		if c == nil {
			c = sl.sum.Compare(baseline, candidate)
		}
		if c == nil {
			continue
		}
		out = append(out, SliceComparison{Slice: sl.Slice, Value: sl.Value, Rules: append(append([]*RuleComparison(nil), c.Rules...), c.Total)})
	}
	return out
}
