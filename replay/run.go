package replay

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/spill"
	"github.com/apeval/apeval/judge/core"
	"golang.org/x/sync/errgroup"
)

// DefaultConcurrency is the number of judge calls in flight per judge when
// Options.Concurrency is 0.
const DefaultConcurrency = 4

// workersPerSlot is how many session-owning workers share one judge-call
// slot (see Run).
const workersPerSlot = 4

// MaxConcurrency bounds Options.Concurrency: more judge calls in flight per
// judge than this is not a setting but a typo, and the workers it implies
// would cost memory for nothing (the command line refuses it).
const MaxConcurrency = 1024

const (
	// blockSize is how many cases are read, dispatched and emitted together;
	// blocksInFlight bounds how many blocks exist at once, so memory is
	// bounded by blockSize·blocksInFlight cases whatever the input size.
	blockSize      = 256
	blocksInFlight = 8
)

// Options configure Run.
type Options struct {
	RunID string
	// Concurrency is the number of judge calls in flight per judge; the
	// sessions are spread over 4 × Concurrency workers (each owns the
	// sessions that hash to it); 0 = DefaultConcurrency.
	Concurrency int
	// Timeout bounds each judge call; 0 = no limit beyond ctx.
	Timeout time.Duration
	// Progress, when set, is called every ProgressInterval (default 1 s)
	// from one goroutine, and once at the end.
	Progress         func(ProgressStats)
	ProgressInterval time.Duration
	// ReuseResults lets Run recycle each Result, with its Rules and Calls,
	// once emit has returned: emit must then copy what it keeps and retain
	// no pointer into the Result. It removes the per-case allocations that
	// dominate a large deterministic run.
	ReuseResults bool
	// Repeat sends each live judge call this many times (--repeat; 0 or 1:
	// once). A rule's result is then the majority of its repeats' votes
	// (Majority) and RuleResult.Repeats holds every vote.
	Repeat int
	// ShuffleRules permutes the rules within each live call, anew for each
	// repeat, from ShuffleSeed, the case and the call (--shuffle-rules):
	// the same permutations at any concurrency. RuleResult.Repeats records
	// each rule's position.
	ShuffleRules bool
	ShuffleSeed  uint64
}

// RunStats count what a run did.
type RunStats struct {
	Cases     int64 // cases emitted (each with one result per judge)
	Results   int64 // results emitted
	Calls     int64 // judge calls made, cache hits included
	CacheHits int64
	Failures  int64 // calls with status invalid, timeout or error
	// InFlight is the judge calls under way at the snapshot; Replayed the
	// results finished by the workers, emitted or not yet (emission goes
	// block by block, so Replayed moves smoothly where Cases jumps).
	InFlight int64
	Replayed int64
}

// ProgressStats is a progress snapshot.
type ProgressStats struct {
	RunStats
	Elapsed time.Duration
}

// Progress is ProgressStats under the name the command layer uses.
type Progress = ProgressStats

type counters struct {
	calls, cacheHits, failures atomic.Int64
	inFlight, replayed         atomic.Int64
}

type block struct {
	cases   []*datasets.Case
	local   []uint32   // each case's session: its slot among its worker's sessions in memory
	sess    []uint32   // each case's session: its ordinal in the run's session table
	results []*Result  // [case*judges + judge]
	store   []reusable // with Options.ReuseResults: the Results, reused block after block
	errs    []error    // same indexing
	parts   [][]int32  // per worker: case indexes in order
	// evicts and reloads are, per worker, the sessions it evicts and
	// reloads before its part (see sessionTable.beginBlock).
	evicts, reloads [][]notice
	pending         atomic.Int32
	done            chan struct{}
}

// Run replays the cases returned by next through the policy with every
// judge and calls emit with each result, in input order: case by case, and
// for each case judge by judge, so the output is identical at any
// concurrency. Sessions replay concurrently; a session's cases replay in
// input order (which must be seq order: a session whose seq goes backwards
// stops the run with a *SeqError naming the case's file:line). Per judge,
// 4 × opts.Concurrency workers each own the sessions that hash to them, and
// at most opts.Concurrency judge calls are in flight; judges run in parallel.
//
// Run stops at the first error from emit or at a seq-order error, and
// nothing after it is emitted. When ctx is cancelled it stops the workers,
// emits every case that had finished for all judges, in input order up to
// the first one that had not (a judge call cut short by the cancellation is
// never emitted as a failure), and returns ctx.Err(). next is called from
// one goroutine; Run returns after next does.
//
// It is a pipeline of three stages (restic's internal/restic/parallel.go
// shape): a reader (read) cuts the input into blocks and hands each
// session's cases to the worker that owns it, the workers (work) replay
// their part of each block, and the writer (write), in Run's goroutine,
// emits the blocks in input order as they complete.
func Run(ctx context.Context, p *Policy, next func() (*datasets.Case, bool), judges []core.Judge, opts Options, emit func(*Result) error) (RunStats, error) {
	if p == nil {
		return RunStats{}, errors.New("replay: no policy")
	}
	if len(judges) == 0 {
		return RunStats{}, errors.New("replay: no judge (use the none judge for deterministic-only runs)")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := newPipeline(p, judges, &opts)
	r.stages.Go(func() error { r.read(ctx, next); return nil })
	defer r.progress()()
	err := r.write(ctx, cancel, emit)
	cancel()
	// Drain so the reader is never stuck on a full ordered channel.
	for range r.ordered {
	}
	// The reader and the workers fail only through the blocks (a case's
	// error is emitted in its place), so the group has no error to give;
	// the end of the input may still find a grouped session that appeared
	// twice (sessionTable.finish).
	_ = r.stages.Wait()
	if err == nil {
		err = r.lateErr
	}
	if cerr := r.spill.Close(); err == nil && cerr != nil {
		err = spillErr(cerr)
	}
	return r.snapshot(), err
}

// pipeline is the state of one Run shared by its stages.
type pipeline struct {
	p      *Policy
	judges []core.Judge
	opts   *Options
	nw, nj int

	sems    []chan struct{} // per judge: one token per judge call in flight
	queues  [][]chan *block // [judge][worker]: the blocks with a part for that worker
	ordered chan *block     // every block, in input order, to the writer
	free    chan *block     // emitted blocks, for the reader to reuse
	stages  errgroup.Group  // the reader and the workers
	started []bool          // reader only: the workers started so far
	session *sessionTable   // reader only: who owns each session, seq order
	lateErr error           // set by the reader at the end of the input: see sessionTable.finish
	spill   *spill.File     // the sessions' state on disk
	// spillErr is the first failure to write or read it (the reader's or a
	// worker's): the writer stops at the next block.
	spillErr atomic.Pointer[error]

	cnt              counters
	emitted, results atomic.Int64
	start            time.Time
}

func newPipeline(p *Policy, judges []core.Judge, opts *Options) *pipeline {
	slots := min(opts.Concurrency, MaxConcurrency)
	if slots <= 0 {
		slots = DefaultConcurrency
	}
	// Sessions are owned by workers (hash of session_id), so a worker that
	// drew more sessions than its share would idle the others' slots: there
	// are workersPerSlot times more workers than calls in flight, and a
	// semaphore per judge bounds the calls.
	nw := slots * workersPerSlot
	r := &pipeline{p: p, judges: judges, opts: opts, nw: nw, nj: len(judges),
		sems: make([]chan struct{}, len(judges)), queues: make([][]chan *block, len(judges)),
		ordered: make(chan *block, blocksInFlight), free: make(chan *block, blocksInFlight+2),
		started: make([]bool, nw), start: time.Now()}
	r.spill = newSpillFile()
	r.session = newSessionTable(nw, r.spill)
	for j := range judges {
		r.sems[j] = make(chan struct{}, slots)
		r.queues[j] = make([]chan *block, nw)
		for w := range nw {
			r.queues[j][w] = make(chan *block, blocksInFlight+2)
		}
	}
	return r
}

func (r *pipeline) snapshot() RunStats {
	return RunStats{Cases: r.emitted.Load(), Results: r.results.Load(), Calls: r.cnt.calls.Load(),
		CacheHits: r.cnt.cacheHits.Load(), Failures: r.cnt.failures.Load(),
		InFlight: r.cnt.inFlight.Load(), Replayed: r.cnt.replayed.Load()}
}

// read is the reader: it fills blocks from next, places their cases and
// sends each block to the writer, then to every worker with a part of it,
// until next is done or ctx ends. It closes the channels it feeds.
func (r *pipeline) read(ctx context.Context, next func() (*datasets.Case, bool)) {
	defer func() {
		close(r.ordered)
		for _, qs := range r.queues {
			for _, q := range qs {
				close(q)
			}
		}
	}()
	for ctx.Err() == nil {
		b := r.fill(next)
		n := len(b.cases)
		if n == 0 {
			r.lateErr = r.session.finish()
			return
		}
		r.place(ctx, b)
		if !r.dispatch(ctx, b) {
			return
		}
		if n < blockSize {
			r.lateErr = r.session.finish()
			return
		}
	}
}

// fill takes a free block (or a new one) and reads up to blockSize cases
// into it.
func (r *pipeline) fill(next func() (*datasets.Case, bool)) *block {
	var b *block
	select {
	case b = <-r.free:
	default:
		b = &block{parts: make([][]int32, r.nw), evicts: make([][]notice, r.nw), reloads: make([][]notice, r.nw)}
	}
	b.cases = b.cases[:0]
	for len(b.cases) < blockSize {
		c, ok := next()
		if !ok {
			break
		}
		b.cases = append(b.cases, c)
	}
	return b
}

// place gives each case of b to the worker that owns its session, starting
// that worker on its first session. A case out of seq order goes to no
// worker: its error stops the run when the writer reaches it.
func (r *pipeline) place(ctx context.Context, b *block) {
	n, nj := len(b.cases), r.nj
	b.results = resize(b.results, n*nj)
	b.errs = resize(b.errs, n*nj)
	if r.opts.ReuseResults {
		// Reslicing keeps each Result's Rules and Calls buffers.
		b.store = resizeKeep(b.store, n*nj)
	}
	for w := range b.parts {
		b.parts[w] = b.parts[w][:0]
	}
	b.local = resize(b.local, n)
	b.sess = resize(b.sess, n)
	if err := r.session.beginBlock(b.evicts, b.reloads); err != nil {
		r.fail(err)
	}
	for i, c := range b.cases {
		w, local, g, err := r.session.place(c)
		if err != nil {
			for j := range nj {
				b.errs[i*nj+j] = err
			}
			continue
		}
		if !r.started[w] {
			r.startWorker(ctx, w)
		}
		b.local[i], b.sess[i] = local, g
		b.parts[w] = append(b.parts[w], int32(i))
	}
	busy := 0
	for w := range b.parts {
		if b.hasWork(w) {
			busy++
		}
	}
	b.pending.Store(int32(busy * nj))
	b.done = make(chan struct{})
	if busy == 0 {
		close(b.done)
	}
}

// startWorker starts worker w for every judge. Workers start when their
// first session arrives, so a large --concurrency on a small dataset costs
// only the workers it uses.
func (r *pipeline) startWorker(ctx context.Context, w int) {
	r.started[w] = true
	for j, jd := range r.judges {
		rep := newReplayer(r.p, jd, jd.Identity(), r.opts, &r.cnt)
		rep.slots, rep.spill = r.sems[j], r.spill
		q := r.queues[j][w]
		r.stages.Go(func() error { r.work(ctx, rep, q, j, w); return nil })
	}
}

// dispatch sends b to the writer, then to each worker with a part of it;
// false when ctx ended first.
func (r *pipeline) dispatch(ctx context.Context, b *block) bool {
	select {
	case r.ordered <- b:
	case <-ctx.Done():
		return false
	}
	for j := range r.queues {
		for w := range b.parts {
			if !b.hasWork(w) {
				continue
			}
			select {
			case r.queues[j][w] <- b:
			case <-ctx.Done():
				return false
			}
		}
	}
	return true
}

// hasWork reports whether worker w has a part of b or notices in it.
func (b *block) hasWork(w int) bool {
	return len(b.parts[w]) > 0 || len(b.evicts[w]) > 0 || len(b.reloads[w]) > 0
}

// fail records the first failure of the sessions' state on disk.
func (r *pipeline) fail(err error) { r.spillErr.CompareAndSwap(nil, &err) }

// write is the writer: it emits the blocks in input order as each
// completes. Interrupted, it stops the reader and the workers, then emits
// every case that finished before the interruption, in input order, and
// returns ctx.Err().
func (r *pipeline) write(ctx context.Context, cancel context.CancelFunc, emit func(*Result) error) error {
	for b := range r.ordered {
		select {
		case <-b.done:
		case <-ctx.Done():
			cancel()
			_ = r.stages.Wait()
			if err := r.emitBlock(ctx, b, emit); err != nil {
				return err
			}
			for b := range r.ordered {
				if err := r.emitBlock(ctx, b, emit); err != nil {
					return err
				}
			}
			return ctx.Err()
		}
		if err := r.spillErr.Load(); err != nil {
			return *err
		}
		if err := r.emitBlock(ctx, b, emit); err != nil {
			return err
		}
		clear(b.results)
		clear(b.errs)
		clear(b.cases)
		select {
		case r.free <- b:
		default:
		}
	}
	return ctx.Err()
}

// emitBlock emits a block's cases in order until the first case that is
// not complete for every judge (only possible once ctx is cancelled: a
// call cut short returns ctx.Err(), never a result).
func (r *pipeline) emitBlock(ctx context.Context, b *block, emit func(*Result) error) error {
	nj := r.nj
	for i := range b.cases {
		for j := range nj {
			if e := b.errs[i*nj+j]; e != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return e
			}
		}
		for j := range nj {
			if b.results[i*nj+j] == nil {
				if err := ctx.Err(); err != nil {
					return err
				}
				return errors.New("replay: internal error: a case has no result")
			}
		}
		for j := range nj {
			if err := emit(b.results[i*nj+j]); err != nil {
				return err
			}
			r.results.Add(1)
		}
		r.emitted.Add(1)
	}
	return nil
}

// progress calls Options.Progress every ProgressInterval from one
// goroutine; the function it returns stops it and reports once more.
func (r *pipeline) progress() (stop func()) {
	report := r.opts.Progress
	if report == nil {
		return func() {}
	}
	interval := r.opts.ProgressInterval
	if interval <= 0 {
		interval = time.Second
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				report(ProgressStats{RunStats: r.snapshot(), Elapsed: time.Since(r.start)})
			case <-quit:
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		report(ProgressStats{RunStats: r.snapshot(), Elapsed: time.Since(r.start)})
	}
}

func (r *pipeline) work(ctx context.Context, rep *replayer, q <-chan *block, j, w int) {
	nj := r.nj
	for b := range q {
		if ctx.Err() == nil {
			// A session's cases in earlier blocks are done: its counters
			// may leave memory; a session that came back gets them again
			// before its case.
			if len(b.evicts[w]) > 0 {
				if err := rep.evict(b.evicts[w]); err != nil {
					r.fail(err)
				}
			}
			for _, n := range b.reloads[w] {
				if err := rep.reload(n); err != nil {
					r.fail(err)
				}
			}
			for _, i := range b.parts[w] {
				var into *reusable
				if b.store != nil {
					into = &b.store[int(i)*nj+j]
				}
				res, err := rep.replay(ctx, b.cases[i], b.local[i], into)
				if err != nil {
					b.errs[int(i)*nj+j] = err
					if ctx.Err() != nil {
						break
					}
					continue
				}
				res.SessionOrd = b.sess[i] + 1
				b.results[int(i)*nj+j] = res
				rep.counters.replayed.Add(1)
			}
		}
		if b.pending.Add(-1) == 0 {
			close(b.done)
		}
	}
}

func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// reusable is a Result recycled with Options.ReuseResults, with the buffers
// of its Rules and Calls (kept apart so that a Result without rows or calls
// still has nil slices, exactly as without reuse).
type reusable struct {
	res   Result
	rules []RuleResult
	calls []Call
}

// resizeKeep is resize that keeps the existing elements when it grows.
func resizeKeep[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return append(s[:cap(s)], make([]T, n-cap(s))...)
}
