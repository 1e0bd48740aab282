package simulate

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is how a configuration decides: one judge, a cascade, a vote.
type Kind string

// Kinds of configuration.
const (
	KindJudge   Kind = "judge"
	KindCascade Kind = "cascade"
	KindVote    Kind = "vote"
)

// OnFailure overrides what a failed judged rule does (a timeout, an
// invalid answer, an error, an unknown).
type OnFailure string

// Failure modes: the rule class's policy (seed 000 §6.4), fail-closed
// (the rule takes its action), fail-open (it does not fire).
const (
	FailPolicy OnFailure = "policy"
	FailBlock  OnFailure = "block"
	FailPass   OnFailure = "pass"
)

// ParseOnFailure checks an --on-failure value ("" is policy).
func ParseOnFailure(s string) (OnFailure, error) {
	switch OnFailure(s) {
	case "", FailPolicy:
		return FailPolicy, nil
	case FailBlock, FailPass:
		return OnFailure(s), nil
	}
	return "", fmt.Errorf("on-failure %q: want block, pass or policy", s)
}

// Trigger says when a cascade asks its next judge about a rule: when the
// previous one answered match, no_match or unknown (a failed call counts
// as unknown), or when its confidence is below Below.
type Trigger struct {
	Match, NoMatch, Unknown bool
	Below                   *float64
}

// Base is a way to decide without its timeout: one judge, a cascade or a
// vote over the run's judges (indexes into Data.Judges).
type Base struct {
	Name    string
	Kind    Kind
	Judges  []int
	Trigger Trigger // cascades
	K       int     // votes: K of len(Judges)
	// Thresholds (one judge): per rule index, the minimum confidence of a
	// match (an operating point); nil: none.
	Thresholds map[int]float64
}

// Config is one simulated deployment: a Base under a hook timeout (0: the
// latencies as recorded, no timeout beyond the run's) and a failure mode.
type Config struct {
	Base
	Timeout   time.Duration
	OnFailure OnFailure
	// Deployed marks the configuration every other one is compared with.
	Deployed bool
}

// Name is the configuration's label: its base, @timeout, and the failure
// mode when it is not the policy's.
func (c *Config) Name() string {
	s := c.Base.Name
	if c.Deployed {
		return "deployed: " + s
	}
	if c.Timeout > 0 {
		s += " @" + c.Timeout.String()
	}
	if c.OnFailure != FailPolicy {
		s += " on-failure=" + string(c.OnFailure)
	}
	return s
}

// Spec is what the command line or apeval.toml asks for.
type Spec struct {
	// Judges to simulate alone; empty: every judge of the run.
	Judges []string
	// Cascades ("A>B:match,unknown") and Votes ("2of3:A,B,C").
	Cascades, Votes []string
	// Timeouts to sweep; empty: none (the recorded latencies only).
	Timeouts  []time.Duration
	OnFailure OnFailure
	// Deployed is the judge the others are compared with; "" is the
	// run's first judge.
	Deployed string
}

// Expand resolves a Spec against the run: the deployed configuration
// first, then every base (judges, cascades, votes) under every timeout.
// Every error is the user's input (exit 2): a judge the run lacks, a
// cascade or vote over a judge that did not answer every case, a timeout
// ≤ 0, a vote larger than its judges, a malformed spec.
func Expand(d *Data, s Spec) ([]Config, error) {
	if err := d.Done(); err != nil {
		return nil, err
	}
	if s.OnFailure == "" {
		s.OnFailure = FailPolicy
	}
	for _, t := range s.Timeouts {
		if t <= 0 {
			return nil, fmt.Errorf("hook timeout %s: must be > 0", t)
		}
	}
	dep := 0
	if s.Deployed != "" {
		j, err := d.resolve(s.Deployed)
		if err != nil {
			return nil, fmt.Errorf("deployed: %w", err)
		}
		dep = j
	}
	if len(d.Judges) == 0 {
		return nil, errors.New("the run has no judge")
	}
	var bases []Base
	names := s.Judges
	if len(names) == 0 {
		for _, j := range d.Judges {
			names = append(names, j.ID)
		}
	}
	for _, n := range names {
		j, err := d.resolve(n)
		if err != nil {
			return nil, err
		}
		bases = append(bases, Base{Name: d.Judges[j].ID, Kind: KindJudge, Judges: []int{j}})
	}
	for _, c := range s.Cascades {
		b, err := parseCascade(d, c)
		if err != nil {
			return nil, err
		}
		bases = append(bases, b)
	}
	for _, v := range s.Votes {
		b, err := parseVote(d, v)
		if err != nil {
			return nil, err
		}
		bases = append(bases, b)
	}
	out := []Config{{Base: Base{Name: d.Judges[dep].ID, Kind: KindJudge, Judges: []int{dep}}, OnFailure: FailPolicy, Deployed: true}}
	timeouts := s.Timeouts
	if len(timeouts) == 0 {
		timeouts = []time.Duration{0}
	}
	for _, b := range bases {
		for _, t := range timeouts {
			out = append(out, Config{Base: b, Timeout: t, OnFailure: s.OnFailure})
		}
	}
	return out, nil
}

// resolve finds the judge a name means: its identity, the identity with
// ':' for its first '/' ("ollama:qwen2.5:3b"), or the one identity it is a
// prefix, then a suffix, of; else the one judge whose model it names
// (models: the identity without its digest and prompt version, from any
// '/' on: "qwen2.5:7b" for "ollama/qwen2.5:7b@1a2b+p1"), then whose model
// it begins ("qwen2.5:7b" for "recorded/ollama/qwen2.5:7b-instruct").
func (d *Data) resolve(name string) (int, error) {
	name = strings.TrimSpace(name)
	ids := make([]string, len(d.Judges))
	for i, j := range d.Judges {
		ids[i] = j.ID
		if j.ID == name || j.ID == strings.Replace(name, ":", "/", 1) {
			return i, nil
		}
	}
	for _, match := range []func(id string) bool{
		func(id string) bool {
			return strings.HasPrefix(id, name) || strings.HasPrefix(id, strings.Replace(name, ":", "/", 1))
		},
		func(id string) bool { return strings.HasSuffix(id, name) },
		func(id string) bool { return slices.Contains(models(id), name) },
		func(id string) bool {
			return slices.ContainsFunc(models(id), func(m string) bool { return strings.HasPrefix(m, name) })
		},
	} {
		var hits []int
		for i, id := range ids {
			if match(id) {
				hits = append(hits, i)
			}
		}
		switch {
		case len(hits) == 1:
			return hits[0], nil
		case len(hits) > 1:
			var hs []string
			for _, h := range hits {
				hs = append(hs, ids[h])
			}
			return 0, fmt.Errorf("judge %q is ambiguous: %s", name, strings.Join(hs, ", "))
		}
	}
	return 0, fmt.Errorf("judge %q is not in the run; its judges are: %s", name, strings.Join(ids, ", "))
}

// models are the ways an identity's model may be named: the identity
// without its digest ("@…") and prompt version ("+…"), from each '/' on.
func models(id string) []string {
	last := strings.LastIndexByte(id, '/')
	if i := strings.IndexAny(id[last+1:], "@+"); i >= 0 {
		id = id[:last+1+i]
	}
	var out []string
	for i := range len(id) {
		if id[i] == '/' && i+1 < len(id) {
			out = append(out, id[i+1:])
		}
	}
	return out
}

// complete checks that judge j may take part in a combination.
func (d *Data) complete(what string, j int) error {
	if why := d.Complete(j); why != "" {
		return fmt.Errorf("%s needs a run in which each judge answered every case: %s", what, why)
	}
	return nil
}

// parseCascade reads "A>B[>C…][:TRIGGERS]", TRIGGERS a comma list of
// match, no_match, unknown and conf<C (default: match,unknown).
func parseCascade(d *Data, spec string) (Base, error) {
	body, trig := spec, ""
	if i := strings.LastIndex(spec, ":"); i >= 0 && isTriggerList(spec[i+1:]) {
		body, trig = spec[:i], spec[i+1:]
	}
	if trig == "" {
		trig = "match,unknown"
	}
	parts := strings.Split(body, ">")
	if len(parts) < 2 {
		return Base{}, fmt.Errorf("cascade %q: want A>B[:match,unknown,conf<0.8]", spec)
	}
	b := Base{Name: spec, Kind: KindCascade}
	for _, p := range parts {
		j, err := d.resolve(p)
		if err != nil {
			return Base{}, fmt.Errorf("cascade %q: %w", spec, err)
		}
		if err := d.complete(fmt.Sprintf("cascade %q", spec), j); err != nil {
			return Base{}, err
		}
		b.Judges = append(b.Judges, j)
	}
	for _, t := range strings.Split(trig, ",") {
		switch t = strings.TrimSpace(t); {
		case t == "match":
			b.Trigger.Match = true
		case t == "no_match":
			b.Trigger.NoMatch = true
		case t == "unknown":
			b.Trigger.Unknown = true
		case strings.HasPrefix(t, "conf<"):
			v, err := strconv.ParseFloat(t[len("conf<"):], 64)
			if err != nil || v <= 0 || v > 1 {
				return Base{}, fmt.Errorf("cascade %q: %q: want conf<C with 0 < C ≤ 1", spec, t)
			}
			b.Trigger.Below = &v
		}
	}
	return b, nil
}

func isTriggerList(s string) bool {
	if s == "" {
		return false
	}
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t != "match" && t != "no_match" && t != "unknown" && !strings.HasPrefix(t, "conf<") {
			return false
		}
	}
	return true
}

// parseVote reads "KofN:A,B,C": a rule matches when at least K of the N
// judges say match.
func parseVote(d *Data, spec string) (Base, error) {
	head, list, ok := strings.Cut(spec, ":")
	ks, ns, ok2 := strings.Cut(head, "of")
	if !ok || !ok2 {
		return Base{}, fmt.Errorf("vote %q: want KofN:A,B,C", spec)
	}
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || k < 1 || n < 1 {
		return Base{}, fmt.Errorf("vote %q: want KofN with 1 ≤ K ≤ N", spec)
	}
	if n > len(d.Judges) {
		return Base{}, fmt.Errorf("vote %q asks %d judges; the run has %d: the vote is larger than the number of judges", spec, n, len(d.Judges))
	}
	names := strings.Split(list, ",")
	if len(names) != n {
		return Base{}, fmt.Errorf("vote %q names %d judges, not %d", spec, len(names), n)
	}
	if k > n {
		return Base{}, fmt.Errorf("vote %q: %d votes of %d judges: the vote is larger than the number of judges", spec, k, n)
	}
	b := Base{Name: spec, Kind: KindVote, K: k}
	seen := map[int]bool{}
	for _, nm := range names {
		j, err := d.resolve(nm)
		if err != nil {
			return Base{}, fmt.Errorf("vote %q: %w", spec, err)
		}
		if seen[j] {
			return Base{}, fmt.Errorf("vote %q names %s twice", spec, d.Judges[j].ID)
		}
		seen[j] = true
		if err := d.complete(fmt.Sprintf("vote %q", spec), j); err != nil {
			return Base{}, err
		}
		b.Judges = append(b.Judges, j)
	}
	return b, nil
}
