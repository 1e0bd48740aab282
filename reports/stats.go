package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/apeval/apeval/datasets"
)

// RenderStats writes `apeval datasets stats`: one table of totals and one per
// breakdown (categories, tools, labels per rule, recorded judges, …); JSON is
// the Stats value itself.
func RenderStats(w io.Writer, s *datasets.Stats, f Format) error {
	if f == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	totals := &grid{header: []string{"what", "count"}, right: []bool{false, true}}
	totals.add("cases", strconv.Itoa(s.Cases))
	totals.add("sessions", strconv.Itoa(s.Sessions))
	totals.add("labeled cases", strconv.Itoa(s.LabeledCases))
	totals.add("invalid arguments", strconv.Itoa(s.InvalidArguments))
	if s.Invalid > 0 {
		totals.add("invalid lines", strconv.Itoa(s.Invalid))
	}
	if err := totals.render(w, f); err != nil {
		return err
	}
	for _, part := range []struct {
		name string
		m    map[string]int
	}{
		{"category", s.Categories},
		{"tool", s.Tools},
		{"hook point", s.HookPoints},
		{"expected action", s.ExpectedActions},
		{"approval outcome", s.ApprovalOutcomes},
		{"tag", s.Tags},
		{"permission (policy and imported rules)", s.Permissions},
	} {
		if len(part.m) == 0 {
			continue
		}
		g := &grid{header: []string{part.name, "cases"}, right: []bool{false, true}}
		for _, k := range sortedKeys(part.m) {
			g.add(k, strconv.Itoa(part.m[k]))
		}
		if err := renderSection(w, g, f); err != nil {
			return err
		}
	}
	if len(s.Labels) > 0 {
		g := &grid{header: []string{"rule", "match", "no_match"}, right: []bool{false, true, true}}
		for _, k := range sortedKeys(s.Labels) {
			l := s.Labels[k]
			g.add(k, strconv.Itoa(l.Match), strconv.Itoa(l.NoMatch))
		}
		if err := renderSection(w, g, f); err != nil {
			return err
		}
	}
	if len(s.Judges) > 0 {
		g := &grid{header: []string{"recorded judge", "cases"}, right: []bool{false, true}}
		for _, k := range sortedKeys(s.Judges) {
			g.add(k, strconv.Itoa(s.Judges[k].Cases))
		}
		if err := renderSection(w, g, f); err != nil {
			return err
		}
	}
	return nil
}

func renderSection(w io.Writer, g *grid, f Format) error {
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return g.render(w, f)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
