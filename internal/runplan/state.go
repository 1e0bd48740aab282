package runplan

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/config"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/objstore"
	"github.com/apeval/apeval/judge"
	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/replay"
	"github.com/apeval/apeval/reports/rundir"
)

// State is one run of a Plan, made when the run starts (Plan.Start): what
// changes while the plan stays as it is — the run's ID and directory, the
// budget spent and whether it stopped the run, the prices of the judges
// opened. Each run of one plan starts from zero.
type State struct {
	Plan    *Plan
	Created time.Time
	RunID   string
	// Out is the run directory written (for a run to a bucket, the one in
	// the temporary directory); RemoteOut is then the bucket prefix, masked.
	Out       string
	RemoteOut string
	// Budget is --max-calls/--budget-usd's (nil without them); Stopped is
	// set when it refused a call: feed no more cases.
	Budget  *judge.Budget
	Stopped atomic.Bool

	prices map[string]config.Prices // judge identity → prices
}

// Start makes the state of one run of p: its run ID (--run-id, else the
// time now and a random suffix), its directory (RunDirFor of --out, else
// of apeval.toml's out pattern) and its budget.
func (p *Plan) Start(now time.Time) *State {
	s := &State{Plan: p, Created: now, RunID: p.RunID}
	if s.RunID == "" {
		s.RunID = NewRunID(now)
	}
	s.Out = RunDirFor(s.OutBase(), p.Layout, s.RunID)
	if p.Budget.MaxCalls > 0 || p.Budget.BudgetUSD > 0 {
		s.Budget = judge.NewBudget(p.Budget.MaxCalls, p.Budget.BudgetUSD, p.Judge.Retries, func(string) { s.Stopped.Store(true) })
	}
	return s
}

// CheckRunID refuses a --run-id that is not one path element of letters,
// digits, '.', '_' and '-' (at most 128, not starting with '.'): the ID
// names the run's directory (apeval-out/<id>, run_id=<id>/ in a hive
// table), so "../x" put the run outside apeval-out, "a/b" two levels down
// and a newline or '=' into a partition name. "" is no --run-id.
func CheckRunID(id string) error {
	if id == "" {
		return nil
	}
	ok := len(id) <= 128 && id[0] != '.'
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("--run-id %q: a run ID is one path element of letters, digits, '.', '_' and '-' (at most 128, not starting with '.'): it names the run's directory", id)
	}
	return nil
}

// NewRunID is a run ID: the UTC time and a random suffix
// (20261201T101500Z-3f2a1b).
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// OutBase is --out, else apeval.toml's out pattern with {run_id} and
// {date} (UTC, YYYY-MM-DD) replaced; "" for the default.
func (s *State) OutBase() string {
	if s.Plan.Out == "" && s.Plan.OutPattern != "" {
		return strings.NewReplacer("{run_id}", s.RunID, "{date}", s.Created.UTC().Format("2006-01-02")).Replace(s.Plan.OutPattern)
	}
	return s.Plan.Out
}

// ToBucket reports whether the run is written to a bucket (--out or
// apeval.toml's out pattern is a URL).
func (p *Plan) ToBucket() bool {
	return objstore.IsURL(p.Out) || p.Out == "" && objstore.IsURL(p.OutPattern)
}

// BucketRunDir is RunDirFor for a bucket prefix (an object-storage URL):
// the prefix itself in the flat layout; in the hive layout the prefix is
// the root of the table and the run is its partition run_id=<id>.
func BucketRunDir(remote, layout, runID string) (string, error) {
	l, err := objstore.Parse(remote)
	if err != nil {
		return "", err
	}
	if layout == rundir.LayoutHive {
		return l.With(path.Join(l.Key, rundir.RunDir(runID))), nil
	}
	return remote, nil
}

// Remote is, for a run to a bucket (ToBucket), the run directory in the
// bucket (BucketRunDir of --out, or of apeval.toml's out pattern), which
// run.json records, masked.
func (s *State) Remote() (string, error) {
	remote, err := BucketRunDir(s.OutBase(), s.Plan.Layout, s.RunID)
	if err != nil {
		return "", err
	}
	s.RemoteOut = mask.Message(remote)
	return remote, nil
}

// StageIn puts the run directory of a run to a bucket in tmp, the
// temporary directory it is written to before the upload, and returns it.
func (s *State) StageIn(tmp string) string {
	s.Out = RunDirFor(filepath.Join(tmp, "run"), s.Plan.Layout, s.RunID)
	return s.Out
}

// RunDirFor is the run directory that --out and --out-layout give: --out
// itself (default apeval-out/<run-id>) in the flat layout; in the hive
// layout --out (default apeval-out) is the root of the table and the run
// is its partition run_id=<run-id>.
func RunDirFor(out, layout, runID string) string {
	if layout == rundir.LayoutHive {
		if out == "" {
			out = "apeval-out"
		}
		return filepath.Join(out, rundir.RunDir(runID))
	}
	if out == "" {
		return filepath.Join("apeval-out", runID)
	}
	return out
}

// Limit puts a live judge under the budget (none without one) and keeps
// its prices for run.json; --budget-usd needs them.
func (s *State) Limit(j judge.Judge, spec string, p config.Prices) (judge.Judge, error) {
	if p.In != nil || p.Out != nil {
		if s.prices == nil {
			s.prices = map[string]config.Prices{}
		}
		s.prices[j.Identity().String()] = p
	}
	if s.Budget == nil || !judge.IsLive(j) {
		return j, nil
	}
	var prices *judge.Prices
	if s.Plan.Budget.BudgetUSD > 0 {
		if p.In == nil && p.Out == nil {
			return nil, fmt.Errorf("--budget-usd: judge %s has no prices (price_in / price_out in its [[judge]] table, or --judge-option price_in=…)", spec)
		}
		prices = &judge.Prices{}
		if p.In != nil {
			prices.In = *p.In
		}
		if p.Out != nil {
			prices.Out = *p.Out
		}
	}
	return s.Budget.Limit(j, prices), nil
}

// ReplayOptions are replay.Run's options for this run.
func (s *State) ReplayOptions() replay.Options {
	p := s.Plan
	return replay.Options{
		RunID:       s.RunID,
		Concurrency: p.Concurrency,
		// Live judges apply --timeout to each attempt themselves, so that
		// --retries can retry; replay's deadline is only a backstop for the
		// whole call.
		Timeout: time.Duration(p.Judge.Retries+1)*(p.Timeout+2*time.Second) + 5*time.Second,
		// The command's emit copies what it keeps (RunWriter and every sink
		// hold no pointer into a Result).
		ReuseResults: true,
		Repeat:       p.Repeat.Repeat,
		ShuffleRules: p.Repeat.ShuffleRules,
		ShuffleSeed:  p.Filter.Seed,
	}
}

// Run is what run.json holds before the replay: the plan resolved, the
// policy and criteria read, the judges opened (their identities and
// details: judges; entries are their specs with settings).
type Run struct {
	Version      string
	Policy       *rundir.FileRef
	Criteria     replay.KillCriteria
	CriteriaFrom string
	Baseline     string
	Entries      []config.JudgeEntry
	Judges       []rundir.JudgeInfo
}

// Info is run.json's content when the run directory is created.
func (s *State) Info(r Run) rundir.RunInfo {
	p := s.Plan
	info := rundir.RunInfo{
		RunID:       s.RunID,
		Created:     s.Created.UTC(),
		Version:     r.Version,
		Policy:      r.Policy,
		Baseline:    r.Baseline,
		Concurrency: p.Concurrency,
		Timeout:     rundir.Duration(p.Timeout),
		Shard:       p.Shard,
		Filter:      p.Filter.Info(),
		Settings:    s.Settings(r.Entries, r.Baseline),
		Layout:      p.Layout,
	}
	if p.WeakLabels {
		info.LabelSource = datasets.LabelSourceWeak
	}
	// The resolved kill criteria travel with the run: report, gate and
	// merge use them (run and replay alike).
	t := metrics.ThresholdsOf(r.Criteria)
	info.Criteria, info.CriteriaFrom = &t, r.CriteriaFrom
	for _, ji := range r.Judges {
		if pr, ok := s.prices[ji.Identity]; ok {
			ji.PriceIn, ji.PriceOut = pr.In, pr.Out
		}
		info.Judges = append(info.Judges, ji)
	}
	return info
}

// Settings are the resolved settings run.json records (what --resume
// reads back).
func (s *State) Settings(entries []config.JudgeEntry, baseline string) *rundir.Settings {
	p := s.Plan
	var specs []string
	for _, e := range entries {
		specs = append(specs, e.Display())
	}
	st := &rundir.Settings{
		Config:       p.Config,
		Datasets:     MaskURLs(p.Datasets),
		Policy:       p.Policy,
		Criteria:     p.Criteria,
		Judges:       specs,
		Baseline:     baseline,
		Out:          cmp.Or(s.RemoteOut, s.Out),
		Concurrency:  p.Concurrency,
		Timeout:      rundir.Duration(p.Timeout),
		Inconclusive: p.Inconclusive,
		Repeat:       p.Repeat.Repeat,
		ShuffleRules: p.Repeat.ShuffleRules,
		BatchSize:    p.Repeat.BatchSize,
		MaxCalls:     p.Budget.MaxCalls,
		BudgetUSD:    p.Budget.BudgetUSD,
	}
	if st.Repeat == 1 {
		st.Repeat = 0 // the default: not written
	}
	if st.ShuffleRules {
		seed := p.Filter.Seed
		st.ShuffleSeed = &seed
	}
	if len(st.Datasets) == 0 {
		st.Datasets = []string{datasets.SampleName}
	}
	if st.Policy == "" {
		st.Policy = "sample:policy.toml"
	}
	opts := map[string][]string{}
	own := false
	var all []rundir.JudgeEntry
	d := p.Judge.Defaults()
	for _, e := range entries {
		kv := d.OptionList(e)
		for i := range kv {
			kv[i] = mask.String(kv[i]) // run.json is a report: no key reaches it
		}
		if len(kv) > 0 {
			opts[e.Display()] = kv
		}
		// Each judge's effective server, key variable and prompt (its own,
		// else the flags'), so --resume can open the same judges.
		eff := d.Effective(e)
		own = own || eff.HasOwnSettings()
		all = append(all, rundir.JudgeEntry{Spec: mask.String(e.Spec), BaseURL: config.MaskURL(eff.BaseURL),
			APIKeyEnv: eff.KeyEnv, Prompt: eff.Prompt, Options: kv})
	}
	if own {
		st.JudgeEntries = all // one per judge, in the order of judges
	}
	if p.Judge.Retries > 0 {
		st.Retries = p.Judge.Retries
	}
	if len(opts) > 0 {
		st.JudgeOptions = opts
	}
	return st
}

// MaskURLs masks the object-storage URLs among names for run.json.
func MaskURLs(names []string) []string {
	if names == nil {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if objstore.IsURL(n) {
			out[i] = mask.Message(n)
		}
	}
	return out
}

// Finish completes run.json after the replay: the datasets and their
// hashes, the cases read, invalid lines, interruption and replay time; the
// budget's report, the run marked partial ("budget " and the budget that
// stopped it) when a budget stopped it; the calls --resume re-sent. It
// returns the number of calls counted at their estimate (no token counts
// reported) under --budget-usd.
func (s *State) Finish(wi *rundir.RunInfo, r Counted) (unmetered int64) {
	wi.Datasets = r.Datasets
	if r.Feed != nil {
		wi.Cases = r.Feed.Cases
		wi.InvalidLines = r.Feed.Invalid.Count
	}
	wi.Interrupted = r.Interrupted
	wi.ReplayMS = float64(r.Time) / float64(time.Millisecond)
	if b := s.Budget; b != nil {
		rep := b.Report()
		wi.Budget = &rep
		if rep.Stopped != "" {
			wi.Partial = "budget " + rep.Stopped
		}
		unmetered = rep.Unmetered
	}
	if s.Plan.Resuming != nil {
		wi.Resumed = s.Plan.Resuming.Report()
	}
	return unmetered
}
