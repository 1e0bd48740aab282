package simulate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
)

// Options are a simulation's settings.
type Options struct {
	// Confidence of every interval (the run's kill criteria's).
	Confidence float64
	// EffectiveRecallMin is the effective_recall_min criterion; nil: off.
	EffectiveRecallMin *float64
	// Seed of the Monte Carlo sign-flip tests (0 is 1) and of the halves.
	Seed uint64
	// Half, when 1 or 2, keeps only the sessions of Half 0 or 1 (the
	// frontier's selection and report halves); 0 keeps every session.
	Half int
	// NoPaired leaves out the comparisons with the deployed configuration.
	NoPaired bool
}

// Result is a simulation: the configurations and their rows, each
// configuration's rules then its "*" row.
type Result struct {
	Configs    []Config `json:"-"`
	Rows       []Row    `json:"rows"`
	Cases      int64    `json:"cases"`
	Sessions   int64    `json:"sessions"`
	Confidence float64  `json:"confidence"`
	// EffectiveRecallMin is the criterion's threshold, nil when off.
	EffectiveRecallMin *float64 `json:"effective_recall_min"`
	// OperatingPoints, when asked for (see OperatingPoints).
	OperatingPoints []OpPoint `json:"operating_points,omitempty"`
	// Frontier, when asked for (see Frontier): null when not, [] when no
	// configuration is on it.
	Frontier []FrontierRow `json:"frontier"`
	// LabelSource is "weak" when the run's labels are weak labels (see
	// SetLabelSource); absent otherwise.
	LabelSource string `json:"label_source,omitempty"`
	// precHist keeps each configuration's precision histograms, per rule
	// in the run's order then "*", for the frontier's tests.
	precHist map[string][]hist
	// ruleIDs are the run's rules in slot order.
	ruleIDs []string
	err     error
}

// slotOf is the slot of a rule ID in precHist (the last, "*", when
// unknown).
func (r *Result) slotOf(id string) int {
	for i, x := range r.ruleIDs {
		if x == id {
			return i
		}
	}
	return len(r.ruleIDs)
}

// Per-slot counters of one session.
const (
	fInScope = iota
	fFired
	fJudged
	fUndecided
	fTimedOut
	fFailOpen
	fTP
	fFP
	fFN
	fTN
	fPos
	fCaught
	fFriction
	fApprovals
	fBlockUnlabeled // blocked or sent for approval, and unlabeled: friction cannot be told
	nF
)

// The proportions with a clustered interval: (successes, units) counters.
var props = [...][2]int{
	{fTP, -1},   // precision: units TP+FP (below)
	{fTP, fPos}, // recall
	{fUndecided, fJudged},
	{fFired, fInScope},
	{fFailOpen, fJudged},
	{fCaught, fPos},
	{fFriction, -2}, // units: the session's cases
}

const (
	pPrecision = iota
	pRecall
	pUnknown
	pFire
	pFailOpen
	pEffRecall
	pFriction
	nP
)

// The paired figures against the deployed configuration.
const (
	cRecall = iota
	cFire
	cEffRecall
	cFriction
	nC
)

var pairedNames = [nC]string{"recall", "fire_rate", "effective_recall", "friction"}

// pairHist is a paired figure's sessions in little memory: the
// concordant units' totals and a histogram of the sessions' discordance.
type pairHist struct {
	both, neither int64
	disc          map[[2]int64]int64
}

// counts lists the histogram as metrics.PairedBinary takes it, in order.
func (p *pairHist) counts() []metrics.PairedCounts {
	out := []metrics.PairedCounts{{Both: p.both, Neither: p.neither}}
	keys := make([][2]int64, 0, len(p.disc))
	for k := range p.disc {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int64) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	for _, k := range keys {
		out = append(out, metrics.PairedCounts{BaseOnly: k[0], CandOnly: k[1], Sessions: p.disc[k]})
	}
	return out
}

// hist counts sessions by their (successes, units), packed as
// successes<<32 | units.
type hist map[uint64]int64

func unpack(k uint64) (y, m int64) { return int64(k >> 32), int64(k & 0xffffffff) }

// acc is one configuration's accumulators.
type acc struct {
	cfg      *Config
	cases    int64
	sessions int64
	called   int64
	asked    []int64
	tokens   int64
	usage    bool
	cost     float64
	tot      []int64 // (R+1)·nF totals
	sess     []int64 // (R+1)·nF, this session
	sessCase int64   // this session's cases
	pairCase int64   // this session's cases the deployed configuration saw too
	hists    []hist  // (R+1)·nP
	appr     [][3]float64
	pair     []metrics.PairedCounts // (R+1)·nC, this session
	// pairs, per (R+1)·nC: the concordant units' totals, and how many
	// sessions had each (baseline-only, candidate-only) discordance.
	pairs []pairHist
	// depBlockUnl counts, per slot, the cases on which the deployed
	// configuration blocked an unlabeled call: the friction delta is null
	// there, as friction is.
	depBlockUnl []int64
	// base indexes the configuration's base in latencies; lat is its
	// quantiles, uncapped, set before its rows are made.
	base int
	lat  *quantile
}

// Run simulates every configuration over the data. cfgs[0] must be the
// deployed configuration (as Expand gives).
// Res.Err says whether reading the run's temporary files cut it short.
func Run(d *Data, cfgs []Config, o Options) *Result {
	if err := d.Done(); err != nil {
		return &Result{Configs: cfgs, Confidence: o.Confidence, err: err}
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	R := len(d.rules)
	S := R + 1 // the "*" slot
	accs := make([]*acc, len(cfgs))
	for i := range cfgs {
		a := &acc{cfg: &cfgs[i], asked: make([]int64, len(cfgs[i].Judges)), tot: make([]int64, S*nF), sess: make([]int64, S*nF),
			hists: make([]hist, S*nP), appr: make([][3]float64, S), pair: make([]metrics.PairedCounts, S*nC),
			pairs: make([]pairHist, S*nC), depBlockUnl: make([]int64, S)}
		for k := range a.hists {
			a.hists[k] = hist{}
		}
		for k := range a.pairs {
			a.pairs[k].disc = map[[2]int64]int64{}
		}
		accs[i] = a
	}
	ev := newEvaluator(d)
	var dep, ce caseEval
	// The deployed configuration's per-rule events on the current case.
	depSlot := make([]int, R)
	// Each base's hook latencies, uncapped (a timeout caps them, and a
	// cascade stopped by one would sum fewer stages): one list per base
	// (its configurations differ only in the timeout), K the latency's
	// bits (non-negative floats sort as their bits), V the session.
	lat := newLatencies(d, cfgs, accs)
	sessOrd := uint64(0)
	err := d.each(false, func(b *block) {
		s := sessOrd
		sessOrd++
		if o.Half > 0 && Half(string(b.sess), o.Seed) != o.Half-1 {
			return
		}
		ev.b = b
		for c := range b.n {
			ev.eval(&cfgs[0], c, &dep)
			for i := range depSlot {
				depSlot[i] = -1
			}
			if dep.present {
				for k, s := range dep.slots {
					depSlot[s.rule] = k
				}
			}
			for i, a := range accs {
				e := &ce
				if i == 0 {
					e = &dep
				} else {
					ev.eval(a.cfg, c, e)
				}
				if !e.present {
					continue
				}
				a.add(e, R, &dep, depSlot)
			}
			lat.add(ev, c, s, &dep)
		}
		for _, a := range accs {
			a.endSession(R)
		}
	})
	res := &Result{Configs: cfgs, Cases: int64(d.Cases()), Sessions: int64(d.Sessions()), Confidence: o.Confidence,
		EffectiveRecallMin: o.EffectiveRecallMin, err: err}
	m := &memo{iv: map[string][3]*float64{}, pb: map[string]metrics.Figure{}}
	res.precHist = map[string][]hist{}
	res.ruleIDs = d.Rules()
	qs := lat.quantiles(o.Confidence)
	if res.err == nil {
		res.err = d.pool.Err()
	}
	for _, a := range accs {
		a.lat = &qs[a.base]
		res.Rows = append(res.Rows, a.rows(d, o, m)...)
		ph := make([]hist, len(d.rules)+1)
		for sl := range ph {
			ph[sl] = a.hists[sl*nP+pPrecision]
		}
		res.precHist[a.cfg.Name()] = ph
	}
	return res
}

// Err is the error that cut the simulation short (reading its temporary
// files), nil when every case was simulated.
func (r *Result) Err() error { return r.err }

// latencies collects each base's uncapped hook latencies during Run's
// pass, in spilled lists, and gives their quantiles with session-clustered
// intervals afterwards.
type latencies struct {
	d     *Data
	bases []Config // per base: a configuration of it without a timeout
	lists []*spill.List
	ce    caseEval
}

func newLatencies(d *Data, cfgs []Config, accs []*acc) *latencies {
	l := &latencies{d: d}
	ix := map[string]int{}
	for i := range cfgs {
		key := string(cfgs[i].Kind) + "\x00" + cfgs[i].Base.Name
		if cfgs[i].Deployed {
			key = "\x01deployed"
		}
		b, ok := ix[key]
		if !ok {
			b = len(l.bases)
			ix[key] = b
			c := cfgs[i]
			c.Timeout = 0
			l.bases = append(l.bases, c)
			l.lists = append(l.lists, d.pool.NewList())
		}
		accs[i].base = b
	}
	return l
}

// add records case c's latency under every base; dep is the deployed
// configuration's evaluation (base 0, no timeout).
func (l *latencies) add(ev *evaluator, c int, sess uint64, dep *caseEval) {
	for b := range l.bases {
		e := dep
		if b > 0 {
			e = &l.ce
			ev.eval(&l.bases[b], c, e)
		}
		if e.present && e.called {
			v := e.rawLat
			if !(v > 0) {
				v = 0
			}
			l.lists[b].Append(spill.Rec{K: math.Float64bits(v), V: sess})
		}
	}
}

// quantile is a base's P50 and P95 with their intervals (nil where the
// data do not bound them), uncapped.
type quantile struct {
	n                 int
	p50, p50Lo, p50Hi *float64
	p95, p95Lo, p95Hi *float64
}

// quantiles reads each base's latencies (sorted by the list) twice: once
// for the estimates and each session's calls at or below them, once for
// the values at the interval's ranks (metrics.SessionQuantileRanks, the
// interval report's P50 and P95 have).
func (l *latencies) quantiles(conf float64) []quantile {
	out := make([]quantile, len(l.lists))
	S := l.d.nSess
	m, c50, c95 := make([]int32, S), make([]int32, S), make([]int32, S)
	for b, list := range l.lists {
		n := int(list.Len())
		q := &out[b]
		q.n = n
		if n == 0 {
			list.Release()
			continue
		}
		clear(m)
		clear(c50)
		clear(c95)
		r50, r95 := max(1, (50*n+99)/100), max(1, (95*n+99)/100)
		var v50, v95 float64
		below50, below95 := 0, 0
		it := list.Iter()
		i := 0
		for r, ok := it.Next(); ok; r, ok = it.Next() {
			i++
			v := math.Float64frombits(r.K)
			s := r.V
			m[s]++
			if i == r50 {
				v50 = v
			}
			if i == r95 {
				v95 = v
			}
			if i <= r50 || v == v50 {
				c50[s]++
				below50 = i
			}
			if i <= r95 || v == v95 {
				c95[s]++
				below95 = i
			}
		}
		sessions := func(cs []int32) func(yield func(m, c int64)) {
			return func(yield func(m, c int64)) {
				for s := range m {
					if m[s] > 0 {
						yield(int64(m[s]), int64(cs[s]))
					}
				}
			}
		}
		lo50, hi50 := metrics.SessionQuantileRanks(n, below50, 50, 100, conf, sessions(c50))
		lo95, hi95 := metrics.SessionQuantileRanks(n, below95, 95, 100, conf, sessions(c95))
		q.p50, q.p95 = ptr(v50), ptr(v95)
		// Two ranks may coincide: look them up by rank, fill each.
		want := map[int][]**float64{}
		for _, pr := range [][2]any{{lo50, &q.p50Lo}, {hi50, &q.p50Hi}, {lo95, &q.p95Lo}, {hi95, &q.p95Hi}} {
			rank, dst := pr[0].(int), pr[1].(**float64)
			if rank >= 1 && rank <= n {
				want[rank] = append(want[rank], dst)
			}
		}
		it = list.Iter()
		i = 0
		for r, ok := it.Next(); ok && len(want) > 0; r, ok = it.Next() {
			i++
			if ds, ok := want[i]; ok {
				for _, dst := range ds {
					*dst = ptr(math.Float64frombits(r.K))
				}
				delete(want, i)
			}
		}
		list.Release()
	}
	return out
}

// add counts one case's evaluation.
func (a *acc) add(e *caseEval, R int, dep *caseEval, depSlot []int) {
	a.sessCase++
	paired := dep.present
	if paired {
		a.pairCase++
	}
	if e.called {
		a.called++
		for k, v := range e.asked {
			if v {
				a.asked[k]++
			}
		}
		a.tokens += e.tokIn + e.tokOut
		a.usage = a.usage || e.usage
		a.cost += e.costIn
	}
	star := a.sess[R*nF : (R+1)*nF]
	caseFric, caseBlockPos, caseBlockUnl := false, false, false
	top := datasets.ActionAllow
	for _, s := range e.slots {
		if s.outcome == outMissing {
			continue
		}
		c := a.sess[s.rule*nF : (s.rule+1)*nF]
		inc := func(f int) { c[f]++; star[f]++ }
		inc(fInScope)
		if s.fired {
			inc(fFired)
			if replay.ActionRank(s.action) > replay.ActionRank(top) {
				top = s.action
			}
		}
		if s.judged {
			inc(fJudged)
			if s.outcome != outMatch && s.outcome != outNoMatch {
				inc(fUndecided)
			}
			if s.timedOut {
				inc(fTimedOut)
				if !s.fired {
					inc(fFailOpen)
				}
			}
		}
		if !s.scope {
			switch s.label {
			case labMatch:
				inc(fPos)
				if s.outcome == outMatch {
					inc(fTP)
				} else {
					inc(fFN)
				}
				if s.fired {
					inc(fCaught)
				}
			case labNoMatch:
				switch s.outcome {
				case outMatch:
					inc(fFP)
				case outNoMatch:
					inc(fTN)
				}
			}
		}
		if s.fired && blocking(s.action) {
			switch s.label {
			case labNoMatch:
				c[fFriction]++
				caseFric = true
			case labNone:
				c[fBlockUnlabeled]++
				caseBlockUnl = true
			default:
				caseBlockPos = true
			}
		}
		if s.fired && s.action == datasets.ActionRequestApproval {
			c[fApprovals]++
		}
		if !paired {
			continue
		}
		k := depSlot[s.rule]
		if k < 0 {
			continue
		}
		ds := dep.slots[k]
		if ds.outcome == outMissing {
			continue
		}
		pc := a.pair[s.rule*nC : (s.rule+1)*nC]
		ps := a.pair[R*nC : (R+1)*nC]
		both := func(f int, unit, eb, ec bool) {
			if !unit {
				return
			}
			for _, p := range [2][]metrics.PairedCounts{pc, ps} {
				switch {
				case eb && ec:
					p[f].Both++
				case eb:
					p[f].BaseOnly++
				case ec:
					p[f].CandOnly++
				default:
					p[f].Neither++
				}
			}
		}
		pos := s.label == labMatch && !s.scope && !ds.scope
		both(cRecall, pos, ds.outcome == outMatch, s.outcome == outMatch)
		both(cFire, true, ds.fired, s.fired)
		both(cEffRecall, pos, ds.fired, s.fired)
		// Friction per rule: the unit is the case; Neither is filled in
		// at the session's end from the cases both saw.
		fb := ds.fired && blocking(ds.action) && ds.label == labNoMatch
		if ds.fired && blocking(ds.action) && ds.label == labNone {
			a.depBlockUnl[s.rule]++
			a.depBlockUnl[R]++
		}
		fc := s.fired && blocking(s.action) && s.label == labNoMatch
		switch {
		case fb && fc:
			pc[cFriction].Both++
		case fb:
			pc[cFriction].BaseOnly++
		case fc:
			pc[cFriction].CandOnly++
		}
	}
	if caseFric && !caseBlockPos && !caseBlockUnl {
		star[fFriction]++
	}
	if caseBlockUnl && !caseBlockPos {
		star[fBlockUnlabeled]++
	}
	if top == datasets.ActionRequestApproval {
		star[fApprovals]++
	}
	if paired {
		fb := caseFriction(dep)
		fc := caseFric && !caseBlockPos && !caseBlockUnl
		p := &a.pair[R*nC+cFriction]
		switch {
		case fb && fc:
			p.Both++
		case fb:
			p.BaseOnly++
		case fc:
			p.CandOnly++
		}
	}
}

// caseFriction is the "*" friction of one case: a blocking rule fired and
// every blocking rule that fired is labeled no_match.
func caseFriction(e *caseEval) bool {
	any := false
	for _, s := range e.slots {
		if s.outcome == outMissing || !s.fired || !blocking(s.action) {
			continue
		}
		if s.label != labNoMatch {
			return false
		}
		any = true
	}
	return any
}

// endSession folds the session's counters into the histograms.
func (a *acc) endSession(R int) {
	if a.sessCase == 0 {
		return
	}
	a.sessions++
	a.cases += a.sessCase
	for sl := 0; sl <= R; sl++ {
		c := a.sess[sl*nF : (sl+1)*nF]
		for p, pr := range props {
			var m int64
			switch pr[1] {
			case -1:
				m = c[fTP] + c[fFP]
			case -2:
				m = a.sessCase
			default:
				m = c[pr[1]]
			}
			if m > 0 {
				a.hists[sl*nP+p][uint64(c[pr[0]])<<32|uint64(m)]++
			}
		}
		v := float64(c[fApprovals])
		a.appr[sl][0]++
		a.appr[sl][1] += v
		a.appr[sl][2] += v * v
		for f := range nF {
			a.tot[sl*nF+f] += c[f]
		}
		clear(c)
		for f := range nC {
			p := a.pair[sl*nC+f]
			if f == cFriction {
				p.Neither = a.pairCase - p.Both - p.BaseOnly - p.CandOnly
			}
			if p.Both+p.BaseOnly+p.CandOnly+p.Neither == 0 {
				continue
			}
			ph := &a.pairs[sl*nC+f]
			ph.both += p.Both
			ph.neither += p.Neither
			if p.BaseOnly+p.CandOnly > 0 {
				ph.disc[[2]int64{p.BaseOnly, p.CandOnly}]++
			}
			a.pair[sl*nC+f] = metrics.PairedCounts{}
		}
	}
	a.sessCase, a.pairCase = 0, 0
}

// memo remembers intervals and paired figures by their data: many
// configurations of a sweep share them (timeouts no call reaches, rules a
// combination leaves alone).
type memo struct {
	iv map[string][3]*float64
	pb map[string]metrics.Figure
}

// interval is h.interval, computed once per distinct histogram.
func (m *memo) interval(h hist, conf, scale float64) (est, lo, hi *float64) {
	keys := h.sorted()
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%x:%d,", k, h[k])
	}
	key := b.String()
	r, ok := m.iv[key]
	if !ok {
		est, lo, hi := h.interval(conf, 1)
		r = [3]*float64{est, lo, hi}
		m.iv[key] = r
	}
	return scaled(r[0], scale), scaled(r[1], scale), scaled(r[2], scale)
}

// paired is metrics.PairedBinary, computed once per distinct data.
func (m *memo) paired(name string, ps []metrics.PairedCounts, conf float64, seed uint64) metrics.Figure {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d;", p.Both, p.BaseOnly, p.CandOnly, p.Neither, p.Sessions)
	}
	key := b.String()
	f, ok := m.pb[key]
	if !ok {
		f = metrics.PairedBinary(name, ps, conf, seed)
		m.pb[key] = f
	}
	f.Figure = name
	return f
}

// sorted lists the histogram's keys in order.
// clusteredSessions is the number of sessions holding units of the
// figure, or 0 when every such session holds one unit (independent
// units, as metrics.Evidence.Sessions counts them).
func (h hist) clusteredSessions() float64 {
	var k int64
	one := true
	for key, n := range h {
		_, m := unpack(key)
		if m == 0 {
			continue
		}
		k += n
		if m > 1 {
			one = false
		}
	}
	if one {
		return 0
	}
	return float64(k)
}

func (h hist) sorted() []uint64 {
	keys := make([]uint64, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// interval is the clustered interval of a histogram, with its estimate;
// nils without units.
func (h hist) interval(conf, scale float64) (est, lo, hi *float64) {
	var y, m int64
	ys := make([]int64, 0, len(h))
	ms := make([]int64, 0, len(h))
	for _, k := range h.sorted() {
		ky, km := unpack(k)
		for range h[k] {
			ys = append(ys, ky)
			ms = append(ms, km)
		}
		y += ky * h[k]
		m += km * h[k]
	}
	if m == 0 {
		return nil, nil, nil
	}
	l, u, _ := metrics.ClusteredInterval(ys, ms, conf)
	return ptr(scale * float64(y) / float64(m)), ptr(scale * l), ptr(scale * u)
}

func ptr(v float64) *float64 { return &v }

// rows gives the configuration's rows: its rules in the run's order, then "*".
func (a *acc) rows(d *Data, o Options, m *memo) []Row {
	R := len(d.rules)
	cfg := a.cfg
	var out []Row
	var tms *float64
	if cfg.Timeout > 0 {
		tms = ptr(float64(cfg.Timeout) / float64(time.Millisecond))
	}
	judges := make([]string, len(cfg.Judges))
	for i, j := range cfg.Judges {
		judges[i] = d.Judges[j].ID
	}
	for sl := 0; sl <= R; sl++ {
		c := a.tot[sl*nF : (sl+1)*nF]
		r := Row{Config: cfg.Name(), Kind: string(cfg.Kind), Base: cfg.Base.Name, Judges: judges, Deployed: cfg.Deployed,
			TimeoutMS: tms, OnFailure: string(cfg.OnFailure), RuleID: "*",
			Cases: a.cases, Sessions: a.sessions, InScope: c[fInScope], Judged: c[fJudged], TimedOut: c[fTimedOut],
			Positives: c[fPos], TP: c[fTP], FP: c[fFP], FN: c[fFN], TN: c[fTN]}
		if sl < R {
			r.RuleID, r.Class = d.rules[sl].ID, string(d.rules[sl].Class)
		}
		h := a.hists[sl*nP : (sl+1)*nP]
		conf := o.Confidence
		r.Precision, r.PrecisionLo, r.PrecisionHi = m.interval(h[pPrecision], conf, 1)
		r.Recall, r.RecallLo, r.RecallHi = m.interval(h[pRecall], conf, 1)
		r.UnknownRate, r.UnknownRateLo, r.UnknownRateHi = m.interval(h[pUnknown], conf, 1)
		r.FireRate, r.FireRateLo, r.FireRateHi = m.interval(h[pFire], conf, 1)
		r.FailOpenRate, r.FailOpenRateLo, r.FailOpenRateHi = m.interval(h[pFailOpen], conf, 1)
		r.EffectiveRecall, r.EffectiveRecallLo, r.EffectiveRecallHi = m.interval(h[pEffRecall], conf, 1)
		r.FrictionPer100, r.FrictionPer100Lo, r.FrictionPer100Hi = m.interval(h[pFriction], conf, 100)
		// A blocked call without a label may be benign or not: friction
		// counted over the labeled ones alone would read as "nothing
		// benign was blocked" on unlabeled traffic (0.00 [0.00, 4.63] on
		// a real import with no label). It is null, with the count.
		if r.BlockedUnlabeled = c[fBlockUnlabeled]; r.BlockedUnlabeled > 0 {
			r.FrictionPer100, r.FrictionPer100Lo, r.FrictionPer100Hi = nil, nil, nil
		}
		r.ApprovalsPerSession, r.ApprovalsPerSessionLo, r.ApprovalsPerSessionHi = meanT(a.appr[sl], conf)
		if o.EffectiveRecallMin != nil {
			r.EffectiveRecallStatus = status(r.EffectiveRecall, r.EffectiveRecallLo, r.EffectiveRecallHi, *o.EffectiveRecallMin, h[pEffRecall].clusteredSessions())
		}
		if !cfg.Deployed && !o.NoPaired {
			for f := range nC {
				// Per rule, the two figures the tables show; the "*" row
				// has all four (each sign-flip test costs).
				if sl < R && f != cEffRecall && f != cFriction {
					continue
				}
				fig := m.paired(pairedNames[f], a.pairs[sl*nC+f].counts(), conf, o.Seed)
				r.VsDeployed = append(r.VsDeployed, fig)
				switch f {
				case cEffRecall:
					r.EffectiveRecallDelta, r.EffectiveRecallDeltaLo, r.EffectiveRecallDeltaHi, r.EffectiveRecallP = fig.Delta, fig.DeltaLo, fig.DeltaHi, fig.PValue
				case cFriction:
					if r.BlockedUnlabeled > 0 || a.depBlockUnl[sl] > 0 {
						break // as friction itself: not told on unlabeled blocked calls
					}
					r.FrictionDelta, r.FrictionDeltaLo, r.FrictionDeltaHi, r.FrictionP = scaled(fig.Delta, 100), scaled(fig.DeltaLo, 100), scaled(fig.DeltaHi, 100), fig.PValue
				}
			}
		}
		if sl == R {
			r.JudgeCalls = a.asked
			r.CalledCases = a.called
			a.latency(&r)
			if a.cases > 0 && a.usage {
				r.TokensPer1k = ptr(float64(a.tokens) / float64(a.cases) * 1000)
				if !math.IsNaN(a.cost) {
					r.CostPer1k = ptr(a.cost / float64(a.cases) * 1000)
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// latency fills the hook's P50 and P95 over the cases that called a
// judge, with their session-clustered intervals: a timeout caps every
// latency at itself, so the quantiles of the capped latencies (and their
// bounds) are the uncapped ones capped.
func (a *acc) latency(r *Row) {
	q := a.lat
	if q == nil || q.n == 0 {
		return
	}
	capAt := math.Inf(1)
	if r.TimeoutMS != nil {
		capAt = *r.TimeoutMS
	}
	c := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		return ptr(min(*v, capAt))
	}
	r.LatencyP50MS, r.LatencyP50LoMS, r.LatencyP50HiMS = c(q.p50), c(q.p50Lo), c(q.p50Hi)
	r.LatencyP95MS, r.LatencyP95LoMS, r.LatencyP95HiMS = c(q.p95), c(q.p95Lo), c(q.p95Hi)
}

func scaled(v *float64, f float64) *float64 {
	if v == nil {
		return nil
	}
	return ptr(*v * f)
}

// meanT is the mean of per-session counts with a t interval over the
// sessions (k − 1 degrees of freedom), floored at 0.
func meanT(s [3]float64, conf float64) (est, lo, hi *float64) {
	k, sum, sq := s[0], s[1], s[2]
	if k == 0 {
		return nil, nil, nil
	}
	m := sum / k
	if k < 2 {
		return ptr(m), nil, nil
	}
	v := max(0, (sq-k*m*m)/(k-1))
	if v == 0 {
		// Every session has the same count (none, on most rules): the t
		// interval has no width, [0, 0] claiming certainty from 23
		// sessions without an approval. The exact Poisson (Garwood)
		// interval of the count per session is the least the data allow.
		lo, hi := garwood(sum, conf)
		return ptr(m), ptr(lo / k), ptr(hi / k)
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: k - 1}.Quantile(1 - (1-conf)/2)
	h := q * math.Sqrt(v/k)
	return ptr(m), ptr(max(0, m-h)), ptr(m + h)
}

// garwood is the exact two-sided Poisson interval of a count s at
// confidence conf: [χ²(α/2; 2s)/2, χ²(1−α/2; 2s+2)/2], 0 below when s = 0.
func garwood(s, conf float64) (lo, hi float64) {
	a := 1 - conf
	if s > 0 {
		lo = distuv.ChiSquared{K: 2 * s}.Quantile(a/2) / 2
	}
	hi = distuv.ChiSquared{K: 2*s + 2}.Quantile(1-a/2) / 2
	return lo, hi
}

// clears reports whether a precision lower bound lo clears precision_min
// pmin, as the verdict's rule has it (metrics.AtLeast: the bound lies
// above the minimum).
func clears(lo, pmin float64) bool { return metrics.AtLeast.Clears(pmin, lo, math.Inf(1)) }

// status decides effective_recall_min the way every kill criterion is
// decided (metrics.AtLeast.Decide): PASS when the interval lies wholly
// above the minimum, FAIL when wholly below, INCONCLUSIVE when it reaches
// it, N/A without labeled positives.
func status(est, lo, hi *float64, min, sessions float64) string {
	if est == nil || lo == nil || hi == nil {
		return string(metrics.StatusNA)
	}
	// The verdict's one rule (metrics.Direction.Decide): a figure resting
	// on 1-2 sessions decides nothing, whatever its interval (simulate's
	// exit 1 was a FAIL on 2 sessions), and the interval must clear the
	// minimum as precision_min's does.
	return string(metrics.AtLeast.Decide(min, metrics.Evidence{Estimate: *est, Lo: *lo, Hi: *hi, Sessions: sessions}).Status)
}

// SetLabelSource records the run's label source (rundir.RunInfo's):
// "weak" marks the result and every row, so each output of the simulation
// says its figures on labels rest on weak labels.
func (r *Result) SetLabelSource(source string) {
	r.LabelSource = source
	for i := range r.Rows {
		r.Rows[i].LabelSource = source
	}
}
