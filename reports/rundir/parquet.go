package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/apeval/apeval/replay"
	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// decisionRow is one decisions.parquet row: a case × judge × rule in scope.
// The nullable columns are optional fields: a string is null when empty (no
// column of the contract stores ""), which parquet-go writes a batch at a
// time; a pointer (for values where zero is a value, and the fingerprint)
// is null when nil, which it writes one row at a time. While a row waits in
// the write buffer its pointers point at the row's own unexported storage,
// so buffering never aliases the caller's Result and costs no allocation.
type decisionRow struct {
	RunID         string `parquet:"run_id,dict"`
	CaseID        string `parquet:"case_id"`
	SessionID     string `parquet:"session_id"`
	Seq           int64  `parquet:"seq"`
	Judge         string `parquet:"judge,dict"`
	Model         string `parquet:"model,optional,dict"`
	ModelDigest   string `parquet:"model_digest,optional,dict"`
	PromptVersion string `parquet:"prompt_version,optional,dict"`
	RuleID        string `parquet:"rule_id,dict"`
	RuleVersion   int32  `parquet:"rule_version"`
	RuleClass     string `parquet:"rule_class,dict"`
	Label         string `parquet:"label,optional,dict"`
	// LabelSource is "weak" when Label is a weak label (run
	// --weak-labels: a user's override, not a review); null otherwise.
	LabelSource string   `parquet:"label_source,optional,dict"`
	Source      string   `parquet:"source,dict"`
	Result      string   `parquet:"result,optional,dict"`
	Confidence  *float64 `parquet:"confidence,optional"`
	Fired       bool     `parquet:"fired"`
	Action      string   `parquet:"action,dict"`
	GateAction  string   `parquet:"gate_action,dict"`
	LatencyMS   *float64 `parquet:"latency_ms,optional"`
	Status      string   `parquet:"status,dict"`
	Error       string   `parquet:"error,optional,dict"`
	Fingerprint *fp32    `parquet:"fingerprint,optional"`
	Tags        []string `parquet:"tags,optional,list"`

	BaselineResult     string   `parquet:"baseline_result,optional,dict"`
	EvidenceAltered    bool     `parquet:"evidence_altered"`
	CallIndex          *int32   `parquet:"call_index,optional"`
	CallRules          *int32   `parquet:"call_rules,optional"`
	CallStatus         string   `parquet:"call_status,optional,dict"`
	CallError          string   `parquet:"call_error,optional,dict"`
	CallCause          string   `parquet:"call_cause,optional,dict"`
	CallCached         *bool    `parquet:"call_cached,optional"`
	CallAttempts       *int32   `parquet:"call_attempts,optional"`
	ServerTotalMS      *float64 `parquet:"server_total_ms,optional"`
	ServerLoadMS       *float64 `parquet:"server_load_ms,optional"`
	ServerPromptEvalMS *float64 `parquet:"server_prompt_eval_ms,optional"`
	ServerEvalMS       *float64 `parquet:"server_eval_ms,optional"`
	PromptTokens       *int64   `parquet:"prompt_tokens,optional"`
	CompletionTokens   *int64   `parquet:"completion_tokens,optional"`
	// Repeats is the rule's votes with --repeat / --shuffle-rules, as JSON
	// (RepeatsJSON); null otherwise.
	Repeats *string `parquet:"repeats,optional"`

	caseColumns

	fp                                       fp32
	conf, lat, sTotal, sLoad, sPrompt, sEval float64
	callIndex, callRules, callAttempts       int32
	callCached                               bool
	pTok, cTok                               int64
	repeats                                  string
}

// fp32 is a fingerprint's SHA-256 as stored: FIXED_LEN_BYTE_ARRAY(32),
// null for replay's zero Digest (no fingerprint). It stays a pointer
// column: parquet-go v0.32 writes an optional [32]byte that follows a
// non-null one in its batch as zeros, not null.
type fp32 = [32]byte

// gateRow is one gates.parquet row: the outcome of a case × judge.
type gateRow struct {
	RunID           string   `parquet:"run_id,dict"`
	CaseID          string   `parquet:"case_id"`
	SessionID       string   `parquet:"session_id"`
	Seq             int64    `parquet:"seq"`
	Judge           string   `parquet:"judge,dict"`
	Permission      string   `parquet:"permission,dict"`
	GateAction      string   `parquet:"gate_action,dict"`
	ExpectedAction  string   `parquet:"expected_action,optional,dict"`
	RulesInScope    int32    `parquet:"rules_in_scope"`
	RulesJudged     int32    `parquet:"rules_judged"`
	JudgeCalled     bool     `parquet:"judge_called"`
	CacheHit        bool     `parquet:"cache_hit"`
	LatencyMS       *float64 `parquet:"latency_ms,optional"`
	Status          string   `parquet:"status,optional,dict"`
	ApprovalOutcome string   `parquet:"approval_outcome,optional,dict"`
	Model           string   `parquet:"model,optional,dict"`
	ModelDigest     string   `parquet:"model_digest,optional,dict"`
	PromptVersion   string   `parquet:"prompt_version,optional,dict"`
	Calls           int32    `parquet:"calls"`
	Tags            []string `parquet:"tags,optional,list"`

	caseColumns

	lat float64
}

// rowsPerGroup bounds the rows buffered per Parquet row group, and so the
// writer's memory, whatever the run's size. 32 Ki rather than 64 Ki rows
// lower a million-case run's peak RSS by some 10 MB for 0.2 % more file.
const rowsPerGroup = 32 << 10

// zstdCodec is parquet-go's zstd codec at its fastest level (a little file
// size for write speed: the run files are written while the replay
// streams) with one encoder kept for the file's life and a 1 MB window.
// Pages are 256 KB, so the default 8 MB window bought nothing but a 16 MB
// history buffer per encoder, allocated again each time the GC emptied
// parquet-go's encoder pool.
type zstdCodec struct {
	zstd.Codec // name, format code and Decode
	mu         sync.Mutex
	enc        *kzstd.Encoder
}

func newZstdCodec() *zstdCodec {
	return &zstdCodec{Codec: zstd.Codec{Level: zstd.SpeedFastest}}
}

// Encode compresses src into dst like zstd.Codec.Encode.
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.enc == nil {
		enc, err := kzstd.NewWriter(nil, kzstd.WithEncoderConcurrency(1),
			kzstd.WithEncoderLevel(kzstd.SpeedFastest), kzstd.WithZeroFrames(true),
			kzstd.WithEncoderCRC(false), kzstd.WithWindowSize(1<<20))
		if err != nil {
			return dst[:0], err
		}
		c.enc = enc
	}
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// batchRows is how many rows are handed to the Parquet writer at once.
const batchRows = 1024

// RunWriter streams replay results into a run directory: decisions.parquet,
// gates.parquet and run.json. Files are written as temporaries and renamed
// into place by Close; Abort removes them. Each file is encoded by its own
// goroutine, batch by batch, so Parquet encoding and compression run beside
// the replay rather than on the goroutine that calls Write. A RunWriter is
// not safe for concurrent use.
//
// In the hive layout (RunInfo.Layout = LayoutHive) each judge of the run
// has its own pair of files, judge=<identity>/decisions.parquet and
// judge=<identity>/gates.parquet, so that the run directories named
// run_id=<id> under one root read as one partitioned table.
type RunWriter struct {
	dir    string
	runDir *runDir
	info   RunInfo
	parts  []*runPart
	byJdg  map[string]*runPart // hive: judge identity → its files
	done   bool
	err    error
	weigh  func(caseID, ruleID, label string) LabelWeight
}

// runPart is one pair of decision and gate files being written.
type runPart struct {
	dir   string
	decF  *os.File
	gateF *os.File
	decW  *pipe[decisionRow]
	gateW *pipe[gateRow]
	// decWW replaces decW in a run with labels (CreateRunWeighted):
	// decisions rows with the label_weight column; weights[i] is
	// decBuf[i]'s.
	decWW   *pipe[weightedDecisionRow]
	wBuf    []weightedDecisionRow
	weights []LabelWeight
	decBuf  []decisionRow
	gateBuf []gateRow
	nDec    int
	nGate   int
}

// pipe hands full batches of rows to a goroutine that writes them, in
// order, to a Parquet writer; the batches come back for reuse. A write
// error is kept and reported by the next send or by close.
type pipe[T any] struct {
	w      *parquet.GenericWriter[T]
	name   string
	full   chan []T
	free   chan []T
	done   chan struct{}
	closed bool
	failed atomic.Bool
	err    error // set before failed
}

// pipeBatches is how many batches a pipe cycles: one being filled, one
// being written and one queued between them.
const pipeBatches = 3

func newPipe[T any](w *parquet.GenericWriter[T], name string) *pipe[T] {
	p := &pipe[T]{w: w, name: name, full: make(chan []T, pipeBatches),
		free: make(chan []T, pipeBatches), done: make(chan struct{})}
	for range pipeBatches - 1 {
		p.free <- make([]T, batchRows)
	}
	go p.run()
	return p
}

func (p *pipe[T]) run() {
	defer close(p.done)
	for rows := range p.full {
		if !p.failed.Load() {
			if _, err := p.w.Write(rows); err != nil {
				p.err = fmt.Errorf("write %s: %w", p.name, err)
				p.failed.Store(true)
			}
		}
		// Not cleared: the next fill overwrites every column of a row, and
		// clearing 1,024 rows with pointers cost ≈ 2 % of a deterministic
		// run's CPU; the strings a free batch still refers to are at most
		// pipeBatches batches' worth.
		p.free <- rows[:cap(rows)]
	}
}

// send queues rows for writing and returns an empty batch to fill next.
func (p *pipe[T]) send(rows []T) ([]T, error) {
	if p.failed.Load() {
		return rows, p.err
	}
	n := cap(rows)
	p.full <- rows
	next := <-p.free
	if cap(next) < n {
		next = make([]T, n)
	}
	return next[:n], nil
}

// close writes what is queued and the Parquet footer.
func (p *pipe[T]) close() error {
	p.stop()
	if p.failed.Load() {
		return p.err
	}
	return p.w.Close()
}

// stop ends the goroutine once the queued batches are written.
func (p *pipe[T]) stop() {
	if !p.closed {
		p.closed = true
		close(p.full)
		<-p.done
	}
}

// CreateRun creates dir (if needed) and starts a run in it. meta is written
// to run.json on Close; adjust it meanwhile through Info. In the hive layout
// meta.Judges must list every judge whose results will be written.
//
// The directory is locked until Release or Abort (a second run into it
// fails with ErrRunDirBusy); a non-empty directory that is not an apeval
// run directory is refused; stale temporary files are removed; Close
// replaces the files of an earlier run; Abort removes the directories
// CreateRun created if nothing was written.
func CreateRun(dir string, meta RunInfo) (*RunWriter, error) {
	return CreateRunWeighted(dir, meta, nil)
}

// LabelWeight is a decisions row's label from a labeled sample: the label
// the figures count (SampleLabel "" when the dataset's own) and its weight;
// Weight 0 means the pair carries no label.
type LabelWeight struct {
	SampleLabel string
	Weight      float64
}

// CreateRunWeighted is CreateRun for a run with labels (`run --labels`):
// decisions.parquet gains the label_weight column (and sample_label), set
// for every row from weigh(caseID, ruleID, its dataset label): 1 for a dataset label, N_h/n_h
// for a queue label, null for an unlabeled pair. With weigh nil it is
// CreateRun, and the files are exactly as without labels.
func CreateRunWeighted(dir string, meta RunInfo, weigh func(caseID, ruleID, label string) LabelWeight) (*RunWriter, error) {
	rd, err := claimRunDir(dir)
	if err != nil {
		return nil, err
	}
	w := &RunWriter{dir: dir, info: meta, runDir: rd, weigh: weigh}
	switch meta.Layout {
	case LayoutFlat:
		p, err := createPart(dir, meta, weigh != nil)
		if err != nil {
			w.Abort()
			return nil, err
		}
		w.parts = append(w.parts, p)
	case LayoutHive:
		if len(meta.Judges) == 0 {
			w.Abort()
			return nil, errors.New("reports: the hive layout needs the run's judges")
		}
		w.byJdg = map[string]*runPart{}
		for _, j := range meta.Judges {
			if _, dup := w.byJdg[j.Identity]; dup {
				w.Abort()
				return nil, fmt.Errorf("reports: judge %s listed twice", j.Identity)
			}
			pdir := filepath.Join(dir, JudgeDir(j.Identity))
			if err := os.MkdirAll(pdir, 0o755); err != nil {
				w.Abort()
				return nil, fmt.Errorf("create run directory: %w", err)
			}
			p, err := createPart(pdir, meta, weigh != nil)
			if err != nil {
				w.Abort()
				return nil, err
			}
			w.parts = append(w.parts, p)
			w.byJdg[j.Identity] = p
		}
	default:
		w.Abort()
		return nil, fmt.Errorf("reports: unknown layout %q (want %q or %q)", meta.Layout, LayoutFlat, LayoutHive)
	}
	return w, nil
}

func createPart(dir string, meta RunInfo, weighted bool) (*runPart, error) {
	p := &runPart{dir: dir, decBuf: make([]decisionRow, batchRows), gateBuf: make([]gateRow, batchRows)}
	var err error
	if p.decF, err = CreateTemp(filepath.Join(dir, DecisionsFile)); err != nil {
		return nil, err
	}
	if p.gateF, err = CreateTemp(filepath.Join(dir, GatesFile)); err != nil {
		DiscardTemp(p.decF)
		return nil, err
	}
	opts := func() []parquet.WriterOption {
		return []parquet.WriterOption{
			parquet.Compression(newZstdCodec()),
			parquet.MaxRowsPerRowGroup(rowsPerGroup),
			// Min/max per page are in the column index and per row group in
			// the column chunk's statistics; repeating them in every data
			// page header cost a second pass over every value (≈ 5 % of a
			// deterministic run's CPU).
			parquet.DataPageStatistics(false),
			parquet.CreatedBy("apeval", meta.Version, ""),
			parquet.KeyValueMetadata("apeval.run_id", meta.RunID),
		}
	}
	if weighted {
		p.decWW = newPipe(parquet.NewGenericWriter[weightedDecisionRow](p.decF, append(opts(), noBounds(DecisionsNoBounds)...)...), DecisionsFile)
		p.weights = make([]LabelWeight, batchRows)
	} else {
		p.decW = newPipe(parquet.NewGenericWriter[decisionRow](p.decF, append(opts(), noBounds(DecisionsNoBounds)...)...), DecisionsFile)
	}
	p.gateW = newPipe(parquet.NewGenericWriter[gateRow](p.gateF, append(opts(), noBounds(GatesNoBounds)...)...), GatesFile)
	return p, nil
}

// DecisionsNoBounds and GatesNoBounds are the columns written without
// min/max statistics: a handful of values (rules, classes, actions,
// results, tools) that nearly every row group holds all of, and the
// fingerprint (a hash, spread over the whole range in any row group), so
// their bounds would let no reader skip a row group, and computing them
// costs a comparison per value (≈ 3 % of a deterministic run's CPU).
// Columns a filter can skip row groups on keep theirs: run_id and judge
// (constant in a file, so runs stacked into one table prune by them),
// source, status, error and the call columns (rare values), the ids, seq
// and times.
var (
	DecisionsNoBounds = []string{"rule_id", "rule_class", "label", "label_source", "result", "action", "gate_action",
		"baseline_result", "evidence_altered", "fingerprint", "tool_name", "category"}
	GatesNoBounds = []string{"gate_action", "expected_action", "tool_name", "category"}
)

func noBounds(columns []string) []parquet.WriterOption {
	opts := make([]parquet.WriterOption, len(columns))
	for i, c := range columns {
		opts[i] = parquet.SkipPageBounds(c)
	}
	return opts
}

// closeFiles finishes both Parquet files of the part at once, each on its
// own goroutine: the last pages and the footers.
func (p *runPart) closeFiles() error {
	gateErr := make(chan error, 1)
	go func() { gateErr <- p.gateW.close() }()
	var err error
	if p.decWW != nil {
		err = p.decWW.close()
	} else {
		err = p.decW.close()
	}
	return errors.Join(err, <-gateErr)
}

// Info gives access to the run.json metadata, for fields known only at the
// end of the run (invalid lines, interrupted).
func (w *RunWriter) Info() *RunInfo { return &w.info }

// Write appends one result: a gates row and one decisions row per rule in
// scope. The result is copied; the caller may reuse it.
func (w *RunWriter) Write(r *replay.Result) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errors.New("reports: write to a closed run")
	}
	if err := checkCalls(r); err != nil {
		return err
	}
	p := w.parts[0]
	if w.byJdg != nil {
		if p = w.byJdg[r.Judge]; p == nil {
			return fmt.Errorf("reports: case %s: judge %s is not one of the run's judges", r.CaseID, r.Judge)
		}
	}
	if p.nDec+len(r.Rules) > len(p.decBuf) {
		if err := w.flushDecisions(p); err != nil {
			return w.fail(err)
		}
	}
	if len(r.Rules) > len(p.decBuf) {
		p.decBuf = make([]decisionRow, len(r.Rules))
		if p.weights != nil {
			p.weights = make([]LabelWeight, len(r.Rules))
		}
	}
	for i := range r.Rules {
		d := &p.decBuf[p.nDec]
		fillDecision(d, r, &r.Rules[i])
		d.LabelSource = ""
		if d.Label != "" {
			d.LabelSource = w.info.LabelSource
		}
		d.caseColumns.fill(r, w.info.Created)
		if p.weights != nil {
			p.weights[p.nDec] = w.weigh(r.CaseID, r.Rules[i].RuleID, string(r.Rules[i].Label))
		}
		p.nDec++
	}
	fillGate(&p.gateBuf[p.nGate], r)
	p.gateBuf[p.nGate].caseColumns.fill(r, w.info.Created)
	p.nGate++
	if p.nGate == len(p.gateBuf) {
		if err := w.flushGates(p); err != nil {
			return w.fail(err)
		}
	}
	return nil
}

func (w *RunWriter) fail(err error) error {
	w.err = err
	return err
}

func (w *RunWriter) flushDecisions(p *runPart) error {
	if p.nDec == 0 {
		return nil
	}
	if p.decWW != nil {
		return w.flushWeighted(p)
	}
	next, err := p.decW.send(p.decBuf[:p.nDec])
	if err != nil {
		return err
	}
	w.info.Decisions += int64(p.nDec)
	p.decBuf, p.nDec = next, 0
	return nil
}

// weightedDecisionRow is a decisions.parquet row of a run with labels.
type weightedDecisionRow struct {
	decisionRow
	SampleLabel string   `parquet:"sample_label,optional,dict"`
	LabelWeight *float64 `parquet:"label_weight,optional"`
}

// flushWeighted copies the buffered rows with their weights and sends
// them; decBuf is reused at once.
func (w *RunWriter) flushWeighted(p *runPart) error {
	if cap(p.wBuf) < p.nDec {
		p.wBuf = make([]weightedDecisionRow, p.nDec)
	}
	rows := p.wBuf[:p.nDec]
	for i := range rows {
		rows[i].decisionRow = p.decBuf[i]
		rows[i].decisionRow.ownPointers()
		rows[i].SampleLabel, rows[i].LabelWeight = p.weights[i].SampleLabel, nil
		if p.weights[i].Weight > 0 {
			v := p.weights[i].Weight
			rows[i].LabelWeight = &v
		}
	}
	next, err := p.decWW.send(rows)
	if err != nil {
		return err
	}
	w.info.Decisions += int64(p.nDec)
	p.wBuf, p.nDec = next, 0
	clear(p.decBuf)
	return nil
}

func (w *RunWriter) flushGates(p *runPart) error {
	if p.nGate == 0 {
		return nil
	}
	next, err := p.gateW.send(p.gateBuf[:p.nGate])
	if err != nil {
		return err
	}
	w.info.Results += int64(p.nGate)
	p.gateBuf, p.nGate = next, 0
	return nil
}

// Close writes the remaining rows and the Parquet footers, syncs and renames
// the files into place, then writes run.json. After a failed Close the
// temporaries are removed and no Parquet file of this run is left behind
// half-written.
func (w *RunWriter) Close() error {
	if w.done {
		return w.err
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	var err error
	for _, p := range w.parts {
		if err == nil {
			err = w.flushDecisions(p)
		}
		if err == nil {
			err = w.flushGates(p)
		}
		if err == nil {
			err = p.closeFiles()
		}
	}
	if err != nil {
		w.err = err
		w.Abort()
		return err
	}
	w.done = true
	// This run replaces an earlier one as a whole: no chart or report of
	// it may stay beside the new files. The earlier files are stashed
	// until this run's reports are written (ReportsWritten), and come back
	// if they fail (ReportsFailed).
	var keep []string
	for _, p := range w.parts {
		keep = append(keep, p.decF.Name(), p.gateF.Name())
	}
	if err := w.runDir.stashEarlier(keep...); err != nil {
		w.err = err
		if rerr := w.runDir.restoreEarlier(); rerr != nil && w.runDir.stashed {
			err = errors.Join(err, rerr)
		}
		w.Abort()
		return err
	}
	for i, p := range w.parts {
		decF, gateF := p.decF, p.gateF
		p.decF, p.gateF = nil, nil
		err := CommitTemp(decF, filepath.Join(p.dir, DecisionsFile))
		if err == nil {
			err = CommitTemp(gateF, filepath.Join(p.dir, GatesFile))
		} else {
			DiscardTemp(gateF)
		}
		if err != nil {
			for _, q := range w.parts[i+1:] {
				q.discard()
			}
			w.err = err
			return err
		}
	}
	if err := WriteRunInfo(w.dir, w.info); err != nil {
		w.err = err
		if w.runDir.stashed {
			return w.ReportsFailed(err)
		}
		return err
	}
	return nil
}

// ReportsWritten completes the run after Close once its reports are
// written: the earlier run's files are removed.
func (w *RunWriter) ReportsWritten() { w.runDir.dropEarlier() }

// ReportsFailed handles a failure to write the reports after Close (a full
// disk): with an earlier run in the directory, this run's files are
// removed and the earlier run's moved back, as it was; without one, this
// run's decisions stay and the message names the command that writes
// the reports from them.
func (w *RunWriter) ReportsFailed(err error) error {
	if w.runDir.stashed {
		if rerr := w.runDir.restoreEarlier(); rerr != nil {
			return fmt.Errorf("%w; restoring the earlier run failed too (%v): its files are in %s",
				err, rerr, filepath.Join(w.dir, EarlierDir))
		}
		return fmt.Errorf("%w; %s holds the earlier run as it was: free space and run again", err, w.dir)
	}
	return fmt.Errorf("%w; this run's decisions are in %s: once there is space, `apeval report %s` writes its reports", err, w.dir, w.dir)
}

// Release drops the run directory's lock; call it once every report is
// written (after Close). A run that committed but neither called
// ReportsWritten nor ReportsFailed failed in between: the earlier run
// comes back first. It is safe to call more than once.
func (w *RunWriter) Release() {
	if w.runDir.stashed {
		_ = w.runDir.restoreEarlier() // a failed restore leaves EarlierDir for the next run to restore
	}
	w.runDir.release()
}

// Abort stops the run and removes its temporary files, and the run
// directory itself when CreateRun created it. Files of an earlier
// completed run in the same directory are left as they were.
func (w *RunWriter) Abort() {
	defer func() {
		w.runDir.release()
		w.runDir.removeCreated()
	}()
	w.done = true
	for _, p := range w.parts {
		if p.decWW != nil {
			p.decWW.stop()
		} else {
			p.decW.stop()
		}
		p.gateW.stop()
		p.discard()
	}
	if w.err == nil {
		w.err = errors.New("reports: run aborted")
	}
}

func (p *runPart) discard() {
	if p.decF != nil {
		DiscardTemp(p.decF)
		p.decF = nil
	}
	if p.gateF != nil {
		DiscardTemp(p.gateF)
		p.gateF = nil
	}
}

// checkCalls makes sure decisions.parquet can carry every call of r: calls
// are stored on the rows of the rules they decided, so each must have one.
func checkCalls(r *replay.Result) error {
	var small uint64 // bit i: call i is referenced; covers the usual case without allocating
	var big []bool
	if len(r.Calls) > 64 {
		big = make([]bool, len(r.Calls))
	}
	for i := range r.Rules {
		for _, v := range r.Rules[i].Repeats {
			if v.Call < 0 || v.Call >= len(r.Calls) {
				return fmt.Errorf("reports: case %s judge %s: rule %s has a repeat on call %d of %d",
					r.CaseID, r.Judge, r.Rules[i].RuleID, v.Call, len(r.Calls))
			}
			if big != nil {
				big[v.Call] = true
			} else {
				small |= 1 << v.Call
			}
		}
		c := r.Rules[i].Call
		if c < 0 {
			continue
		}
		if c >= len(r.Calls) {
			return fmt.Errorf("reports: case %s judge %s: rule %s refers to call %d of %d",
				r.CaseID, r.Judge, r.Rules[i].RuleID, c, len(r.Calls))
		}
		if big != nil {
			big[c] = true
		} else {
			small |= 1 << c
		}
	}
	for i := range r.Calls {
		if (big != nil && !big[i]) || (big == nil && small&(1<<i) == 0) {
			return fmt.Errorf("reports: case %s judge %s: call %d decided no rule, so it cannot be recorded",
				r.CaseID, r.Judge, i)
		}
	}
	return nil
}

func optF(p **float64, storage *float64, v *float64) {
	if v == nil {
		*p = nil
		return
	}
	*storage = *v
	*p = storage
}

func optI(p **int64, storage *int64, v *int64) {
	if v == nil {
		*p = nil
		return
	}
	*storage = *v
	*p = storage
}

func fillDecision(d *decisionRow, r *replay.Result, rr *replay.RuleResult) {
	d.RunID, d.CaseID, d.SessionID, d.Seq, d.Judge = r.RunID, r.CaseID, r.SessionID, r.Seq, r.Judge
	d.Model, d.ModelDigest, d.PromptVersion = r.Model, r.ModelDigest, r.PromptVersion
	d.RuleID, d.RuleVersion, d.RuleClass = rr.RuleID, int32(rr.RuleVersion), string(rr.Class)
	d.Label, d.Source, d.Result = string(rr.Label), string(rr.Source), string(rr.Result)
	optF(&d.Confidence, &d.conf, rr.Confidence)
	d.Fired, d.Action, d.GateAction = rr.Fired, string(rr.Action), string(r.GateAction)
	d.Status = string(rr.Status)
	d.Error = rr.Error
	if rr.Fingerprint.IsZero() {
		d.Fingerprint = nil
	} else {
		d.fp, d.Fingerprint = rr.Fingerprint, &d.fp
	}
	d.Tags = r.Tags
	d.BaselineResult = string(rr.BaselineResult)
	d.EvidenceAltered = rr.EvidenceAltered
	if len(rr.Repeats) > 0 {
		d.repeats, d.Repeats = RepeatsJSON(r, rr), &d.repeats
	} else {
		d.Repeats = nil
	}
	if rr.Call < 0 {
		d.LatencyMS, d.CallIndex, d.CallRules, d.CallStatus, d.CallError, d.CallCause = nil, nil, nil, "", "", ""
		d.CallCached, d.CallAttempts = nil, nil
		d.ServerTotalMS, d.ServerLoadMS, d.ServerPromptEvalMS, d.ServerEvalMS = nil, nil, nil, nil
		d.PromptTokens, d.CompletionTokens = nil, nil
		return
	}
	c := &r.Calls[rr.Call]
	d.lat, d.LatencyMS = c.LatencyMS, &d.lat
	d.callIndex, d.CallIndex = int32(rr.Call), &d.callIndex
	d.callRules, d.CallRules = int32(c.Rules), &d.callRules
	d.CallStatus, d.CallError, d.CallCause = string(c.Status), c.Error, string(c.Cause)
	d.callCached, d.CallCached = c.Cached, &d.callCached
	d.callAttempts, d.CallAttempts = int32(c.Attempts), &d.callAttempts
	optF(&d.ServerTotalMS, &d.sTotal, c.ServerTotalMS)
	optF(&d.ServerLoadMS, &d.sLoad, c.ServerLoadMS)
	optF(&d.ServerPromptEvalMS, &d.sPrompt, c.ServerPromptEvalMS)
	optF(&d.ServerEvalMS, &d.sEval, c.ServerEvalMS)
	optI(&d.PromptTokens, &d.pTok, c.PromptTokens)
	optI(&d.CompletionTokens, &d.cTok, c.CompletionTokens)
}

// ownPointers points d's non-null pointer columns at d's own storage. A
// copied row's pointers still point into the row it was copied from, which
// is refilled while the copy waits to be written.
func (d *decisionRow) ownPointers() {
	if d.Confidence != nil {
		d.Confidence = &d.conf
	}
	if d.LatencyMS != nil {
		d.LatencyMS = &d.lat
	}
	if d.Fingerprint != nil {
		d.Fingerprint = &d.fp
	}
	if d.Repeats != nil {
		d.Repeats = &d.repeats
	}
	if d.CallIndex != nil {
		d.CallIndex = &d.callIndex
	}
	if d.CallRules != nil {
		d.CallRules = &d.callRules
	}
	if d.CallCached != nil {
		d.CallCached = &d.callCached
	}
	if d.CallAttempts != nil {
		d.CallAttempts = &d.callAttempts
	}
	if d.ServerTotalMS != nil {
		d.ServerTotalMS = &d.sTotal
	}
	if d.ServerLoadMS != nil {
		d.ServerLoadMS = &d.sLoad
	}
	if d.ServerPromptEvalMS != nil {
		d.ServerPromptEvalMS = &d.sPrompt
	}
	if d.ServerEvalMS != nil {
		d.ServerEvalMS = &d.sEval
	}
	if d.PromptTokens != nil {
		d.PromptTokens = &d.pTok
	}
	if d.CompletionTokens != nil {
		d.CompletionTokens = &d.cTok
	}
	if d.CaseTime != nil {
		d.CaseTime = &d.caseT
	}
}

func fillGate(g *gateRow, r *replay.Result) {
	g.RunID, g.CaseID, g.SessionID, g.Seq, g.Judge = r.RunID, r.CaseID, r.SessionID, r.Seq, r.Judge
	g.Permission, g.GateAction = r.Permission, string(r.GateAction)
	g.ExpectedAction = string(r.ExpectedAction)
	g.RulesInScope, g.RulesJudged = int32(r.RulesInScope), int32(r.RulesJudged)
	g.JudgeCalled, g.CacheHit = r.JudgeCalled, r.CacheHit
	optF(&g.LatencyMS, &g.lat, r.LatencyMS)
	g.Status, g.ApprovalOutcome = string(r.Status), string(r.ApprovalOutcome)
	g.Model, g.ModelDigest, g.PromptVersion = r.Model, r.ModelDigest, r.PromptVersion
	g.Calls = int32(len(r.Calls))
	g.Tags = r.Tags
}
