package simulate

import (
	"math"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/replay"
)

// slot is one rule of one case under a configuration: what the gate
// would have decided.
type slot struct {
	rule     int
	label    uint8
	outcome  uint8
	judged   bool
	scope    bool
	timedOut bool // judged, and lost to the (simulated or recorded) timeout
	fired    bool
	action   datasets.Action
}

// caseEval is one case under one configuration.
type caseEval struct {
	present bool
	called  bool
	rawLat  float64 // the hook's latency without a timeout (ms)
	slots   []slot
	asked   []bool // per judge of the configuration: called on this case
	tokIn   int64
	tokOut  int64
	costIn  float64 // Σ tokens × price, per judge; NaN when an asked judge has no price
	usage   bool
}

// evaluator evaluates the cases of a session (b) under configurations,
// reusing its buffers.
type evaluator struct {
	d   *Data
	b   *block
	cur []row // a cascade's current answer per slot
	pos []int // rule → index in cur, -1 when not in scope
}

func newEvaluator(d *Data) *evaluator {
	pos := make([]int, len(d.rules))
	for i := range pos {
		pos[i] = -1
	}
	return &evaluator{d: d, pos: pos}
}

// fail is what a failed or unknown judged rule does under the mode.
func fail(r *replay.Rule, mode OnFailure, baselineMatch bool) (bool, datasets.Action) {
	baseline := core.NoMatch
	if baselineMatch {
		baseline = core.Match
	}
	switch mode {
	case FailBlock:
		return true, r.Action
	case FailPass:
		return false, ""
	}
	return r.OnFailure(baseline)
}

// eval evaluates case c of the session under cfg into out (reused).
func (e *evaluator) eval(cfg *Config, c int, out *caseEval) {
	d, b := e.d, e.b
	out.slots = out.slots[:0]
	out.asked = append(out.asked[:0], make([]bool, len(cfg.Judges))...)
	out.present, out.called, out.rawLat, out.tokIn, out.tokOut, out.costIn, out.usage = false, false, 0, 0, 0, 0, false
	first := b.at(cfg.Judges[0], c)
	if !first.present() {
		return
	}
	out.present, out.called = true, first.called()
	for _, r := range e.cur {
		e.pos[r.rule] = -1
	}
	e.cur = e.cur[:0]
	for i, p := range b.rowsOf(first) {
		e.cur = append(e.cur, p.unpack())
		e.pos[p.rule] = i
	}
	// undecidedTimeout marks votes undecided because a judge was too slow.
	var voteTimeout []bool
	ask := func(k int, jc *judgeCase) {
		out.asked[k] = true
		out.tokIn += int64(jc.tokIn)
		out.tokOut += int64(jc.tokOut)
		out.usage = out.usage || jc.usage()
		j := d.Judges[cfg.Judges[k]]
		if j.PriceIn == nil || j.PriceOut == nil {
			out.costIn = math.NaN()
		} else {
			out.costIn += float64(jc.tokIn)/1e6**j.PriceIn + float64(jc.tokOut)/1e6**j.PriceOut
		}
	}
	t := float64(cfg.Timeout) / float64(time.Millisecond)
	killed := false
	switch cfg.Kind {
	case KindJudge:
		if first.called() {
			ask(0, first)
			out.rawLat = first.lat
		}
		killed = t > 0 && first.called() && first.lat > t
	case KindCascade:
		if !first.called() {
			break
		}
		ask(0, first)
		lat := first.lat
		for k := 1; k < len(cfg.Judges) && !(t > 0 && lat > t); k++ {
			jc := b.at(cfg.Judges[k], c)
			nrows := b.rowsOf(jc)
			asked := false
			for i := range e.cur {
				r := &e.cur[i]
				if !r.judged || r.outcome == outMissing || !cfg.Trigger.fires(r) {
					continue
				}
				for _, p := range nrows {
					if nr := p.unpack(); nr.rule == r.rule && nr.judged && nr.outcome != outMissing {
						*r = nr
						asked = true
						break
					}
				}
			}
			if asked {
				ask(k, jc)
				lat += jc.lat
			}
		}
		out.rawLat = lat
		killed = t > 0 && lat > t
	case KindVote:
		if !first.called() {
			break
		}
		voteTimeout = make([]bool, len(e.cur))
		nm := make([]int, len(e.cur))
		nn := make([]int, len(e.cur))
		for k := range cfg.Judges {
			jc := b.at(cfg.Judges[k], c)
			ask(k, jc)
			out.rawLat = max(out.rawLat, jc.lat)
			slow := t > 0 && jc.lat > t
			for _, p := range b.rowsOf(jc) {
				nr := p.unpack()
				i := e.pos[nr.rule]
				if i < 0 || !nr.judged {
					continue
				}
				switch {
				case slow || nr.timedOut:
					voteTimeout[i] = true
				case nr.outcome == outMatch:
					nm[i]++
				case nr.outcome == outNoMatch:
					nn[i]++
				}
			}
		}
		n := len(cfg.Judges)
		for i := range e.cur {
			r := &e.cur[i]
			if !r.judged || r.outcome == outMissing {
				continue
			}
			r.conf = float32(math.NaN())
			switch {
			case nm[i] >= cfg.K:
				r.outcome, r.timedOut = outMatch, false
			case nm[i]+(n-nm[i]-nn[i]) < cfg.K:
				r.outcome, r.timedOut = outNoMatch, false
			default:
				r.outcome, r.timedOut = outUnknown, voteTimeout[i]
			}
		}
	}
	if cfg.Thresholds != nil {
		// An operating point: a match below the rule's minimum confidence
		// is a no_match.
		for i := range e.cur {
			r := &e.cur[i]
			if th, ok := cfg.Thresholds[int(r.rule)]; ok && r.judged && r.outcome == outMatch && float64(r.conf) < th {
				r.outcome = outNoMatch
			}
		}
	}
	for i := range e.cur {
		r := &e.cur[i]
		def := d.rules[r.rule]
		s := slot{rule: int(r.rule), label: r.label, outcome: r.outcome, judged: r.judged, scope: r.scope}
		switch {
		case !r.judged:
			s.fired, s.action = r.fired, actions[r.action]
		case r.outcome == outMissing:
		case killed:
			s.outcome, s.timedOut = outFailed, true
			s.fired, s.action = fail(def, cfg.OnFailure, r.baseline)
		case r.outcome == outMatch:
			s.fired, s.action = true, def.Action
		case r.outcome == outNoMatch:
		default:
			s.timedOut = r.timedOut
			s.fired, s.action = fail(def, cfg.OnFailure, r.baseline)
		}
		out.slots = append(out.slots, s)
	}
}

// fires says whether a cascade asks its next judge about the row.
func (t Trigger) fires(r *row) bool {
	switch r.outcome {
	case outMatch:
		if t.Match {
			return true
		}
	case outNoMatch:
		if t.NoMatch {
			return true
		}
	case outUnknown, outFailed:
		return t.Unknown
	}
	return t.Below != nil && !math.IsNaN(float64(r.conf)) && float64(r.conf) < *t.Below
}

// blocking reports whether an action blocks the tool call or sends it for
// approval (what friction counts).
func blocking(a datasets.Action) bool {
	switch a {
	case datasets.ActionDenyCurrentTool, datasets.ActionRequestApproval, datasets.ActionStopTask:
		return true
	}
	return false
}
