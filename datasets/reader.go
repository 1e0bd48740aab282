package datasets

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// DefaultMaxLineBytes is the longest JSONL line the Reader accepts; a longer
// line is reported as an error and skipped, and reading goes on.
const DefaultMaxLineBytes = 16 << 20

// StdinName is the default file name shown in errors for records read
// from "-" (see Reader.StdinName).
const StdinName = "stdin"

// LineError is a problem with one line of a dataset: the file and 1-based
// line number, the JSON field at fault (dotted path, [i] for list indices;
// empty when the whole line is at fault) and what is wrong.
type LineError struct {
	File  string
	Line  int
	Field string
	Msg   string
	// kind is Msg without the line's own values (the format it was
	// written from), for counting errors by kind (ErrorKind); "" when
	// Msg itself is the kind.
	kind string
}

// Error formats the error as "file:line: field: message", leaving out the
// field when the whole line is at fault.
func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Record is one non-blank line of a dataset: exactly one of Case and Err is
// set. Err is a *LineError.
type Record struct {
	Case *Case
	Err  error
	// Late marks an Err about a line whose Case was already delivered: a
	// duplicate id found only at the end of the input, because the two
	// lines are further apart than Reader.MaxIDsInMemory ids. Late errors
	// come after every other record, in id order.
	Late bool
}

// Reader streams apeval.case/v1 records from JSONL files in order, like
// bufio.Scanner: call Scan until it returns false, look at each Record, then
// check Err for a fatal error (an unreadable file). A malformed line is a
// Record carrying a *LineError, never the end of the stream.
//
// Blank and whitespace-only lines are skipped silently (they still count for
// line numbers); a UTF-8 byte-order mark at the start of a file is ignored;
// lines may end in "\n" or "\r\n". Unknown fields are accepted and
// ignored (not kept: WriteJSONL leaves them out; ScanRaw hands lines on
// unchanged).
//
// A file that starts with the gzip or zstd magic is decompressed as it is
// read (see Decompress), whatever its name.
//
// A file that starts with the Parquet magic "PAR1" is read as Parquet: the
// same records with the same field names, nested fields as Parquet groups,
// lists and maps or as JSON text in string columns. Each row is validated
// like a JSONL line and named "file:N" for the N-th row. Parquet needs
// random access, so it cannot come from stdin.
//
// Lines are decoded in parallel by a small pipeline that keeps file order,
// so memory is bounded by a few batches of lines, independent of the
// dataset's size. The duplicate-id check is exact (ids are compared by
// their bytes, not their hash) and bounded too: it keeps at most
// MaxIDsInMemory ids in memory (about 16 bytes each plus the id) and
// writes each full chunk of ids, sorted, to a temporary file, which it
// merges at the end of the input to find the duplicates between chunks
// (reported then, with Record.Late set; see idSet).
//
// Set the exported fields before the first Scan. Always Close the Reader.
type Reader struct {
	// URLs opens names with a scheme (s3://…); nil reads local files only.
	URLs Opener
	// MaxLineBytes caps a line's length (default DefaultMaxLineBytes).
	MaxLineBytes int
	// Categories classifies tools whose record has no tool.category
	// (default: the built-in map, CategoryOf).
	Categories CategoryMap
	// Workers is the number of decoding goroutines (default GOMAXPROCS, at most 4).
	Workers int
	// StdinName is the file name shown for "-" (default StdinName), e.g.
	// SampleName when stdin is the embedded sample.
	StdinName string
	// Done, when set, is the stop signal of an interrupted command: once it
	// is closed, Scan stops waiting for input (a stdin that sends nothing,
	// an endless line) and returns false with Err ErrStopped, and Close no
	// longer waits for a read that may never return.
	Done <-chan struct{}
	// MaxIDsInMemory bounds the ids the duplicate-id check keeps in memory
	// (default DefaultMaxIDsInMemory); past it, ids go to a temporary file
	// in os.TempDir and duplicates further apart are reported late.
	MaxIDsInMemory int

	paths []string
	stdin io.Reader

	started bool
	stop    chan struct{}
	order   chan *batch
	wg      sync.WaitGroup
	cur     *batch
	idx     int
	rec     Record
	err     error
	closed  bool
	stopped bool // Scan ended by Done

	seen  idSet     // the ids read so far
	sums  []uint64  // the hashes of the current batch's ids, for seen
	pos   positions // record ordinal → file:line, for duplicate messages
	ord   uint32    // ordinal of the next record
	files []string  // file names by index
}

// Open returns a Reader over the given files, read in order; "-" reads
// stdin. No file is opened before the first Scan.
func Open(paths []string, stdin io.Reader) *Reader {
	return &Reader{paths: paths, stdin: stdin}
}

// batch is a run of consecutive lines of one file, decoded by one worker.
type batch struct {
	file    string
	fileIdx int
	arena   []byte
	box     *[]byte // arena's holder in the pool, reused so Put does not allocate
	lines   []lineRef
	out     []Record
	fatal   error
	done    chan struct{}
	grouped bool // the file's first record declares its sessions grouped
}

// lineRef locates one line inside a batch's arena.
type lineRef struct {
	start, end int
	line       int   // 1-based line number in the file
	seq        int64 // 1-based record number in the file
	tooLong    bool
}

const (
	batchLines = 512
	batchBytes = 1 << 20
)

func (r *Reader) start() {
	r.started = true
	if r.MaxLineBytes <= 0 {
		r.MaxLineBytes = DefaultMaxLineBytes
	}
	workers := r.Workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	r.stop = make(chan struct{})
	r.order = make(chan *batch, 2*workers)
	work := make(chan *batch, 2*workers)
	r.files = make([]string, len(r.paths))
	for i, p := range r.paths {
		r.files[i] = r.URLs.display(p)
		if p == "-" {
			r.files[i] = cmp.Or(r.StdinName, StdinName)
		}
	}
	r.wg.Add(1 + workers)
	go r.produce(work)
	for range workers {
		go func() {
			defer r.wg.Done()
			for b := range work {
				r.decodeBatch(b)
				close(b.done)
			}
		}()
	}
}

// produce splits the files into batches of lines and hands each to the
// workers and, in order, to Scan.
func (r *Reader) produce(work chan<- *batch) {
	defer r.wg.Done()
	defer close(r.order)
	defer close(work)
	send := func(b *batch) bool {
		select {
		case r.order <- b:
		case <-r.stop:
			return false
		}
		if b.fatal != nil {
			close(b.done)
			return true
		}
		select {
		case work <- b:
			return true
		case <-r.stop:
			return false
		}
	}
	for i, p := range r.paths {
		if !r.produceFile(i, p, send) {
			return
		}
	}
}

func (r *Reader) produceFile(idx int, path string, send func(*batch) bool) bool {
	name := r.files[idx]
	var src io.Reader
	if path == "-" {
		if r.stdin == nil {
			send(&batch{fatal: errors.New(name + ": no input"), done: make(chan struct{})})
			return false
		}
		src = r.stdin
	} else {
		f, err := r.URLs.open(path)
		if err != nil {
			send(&batch{fatal: err, done: make(chan struct{})})
			return false
		}
		defer f.Close()
		src = f
	}
	raw := bufio.NewReaderSize(src, 1<<20)
	head, _ := raw.Peek(4)
	compressed := Compression(head) != ""
	br, release, err := Decompress(raw, name)
	if err != nil {
		send(&batch{fatal: err, done: make(chan struct{})})
		return false
	}
	defer release()
	if magic, _ := br.Peek(len(parquetMagic)); bytes.Equal(magic, parquetMagic) {
		f, ok := src.(*os.File)
		if !ok || path == "-" || compressed {
			send(&batch{fatal: errors.New(name + ": Parquet input needs a file (random access), not a stream"), done: make(chan struct{})})
			return false
		}
		return r.produceParquet(idx, f, send)
	}
	b := newBatch(name, idx)
	var line int
	var seq int64
	grouped := false
	var long []byte // a line longer than the bufio buffer, assembled here
	inLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull || inLong {
			// Assemble a long line; past the limit stop copying, the
			// length alone says it is too long.
			if len(long) <= r.MaxLineBytes {
				long = append(long, chunk...)
			}
			if err == bufio.ErrBufferFull {
				inLong = true
				continue
			}
			chunk, inLong = long, false
		}
		if len(chunk) > 0 {
			line++
			text := trimEOL(chunk)
			if line == 1 {
				text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
			}
			if !isBlank(text) {
				seq++
				if seq == 1 {
					grouped = declaresGrouped(text)
					b.grouped = grouped
				}
				ref := lineRef{line: line, seq: seq}
				if len(text) > r.MaxLineBytes {
					ref.tooLong = true
				} else {
					ref.start = len(b.arena)
					b.arena = append(b.arena, text...)
					ref.end = len(b.arena)
				}
				b.lines = append(b.lines, ref)
			}
			long = long[:0]
			if cap(long) > 4<<20 {
				long = nil // do not keep a huge buffer around after one long line
			}
		}
		if len(b.lines) >= batchLines || len(b.arena) >= batchBytes {
			if !send(b) {
				return false
			}
			b = newBatch(name, idx)
			b.grouped = grouped
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			if len(b.lines) > 0 && !send(b) {
				return false
			}
			send(&batch{fatal: fmt.Errorf("%s: %w", name, err), done: make(chan struct{})})
			return false
		}
	}
	if len(b.lines) > 0 {
		return send(b)
	}
	return true
}

// declaresGrouped reports whether a file's first record carries
// "apeval_sessions": "grouped" (SessionsField) at its top level.
func declaresGrouped(line []byte) bool {
	if !bytes.Contains(line, []byte(`"`+SessionsField+`"`)) {
		return false
	}
	var head map[string]json.RawMessage
	if json.Unmarshal(line, &head) != nil {
		return false
	}
	var v string
	return json.Unmarshal(head[SessionsField], &v) == nil && v == SessionsGrouped
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func (r *Reader) decodeBatch(b *batch) {
	b.out = make([]Record, len(b.lines))
	// The batch's cases are one allocation rather than one each. The slab
	// lives while any of its cases does; the readers' users keep strings
	// of a case (its own allocations), not the case, so that is the time
	// the batch is being replayed.
	slab := make([]Case, len(b.lines))
	for i, l := range b.lines {
		if l.tooLong {
			b.out[i].Err = &LineError{File: b.file, Line: l.line,
				Msg: fmt.Sprintf("line longer than %d bytes", r.MaxLineBytes)}
			continue
		}
		c, err := decodeLineInto(&slab[i], b.arena[l.start:l.end], b.file, l.line, r.Categories, true)
		if err != nil {
			b.out[i].Err = err
			continue
		}
		c.grouped, c.file = b.grouped, int32(b.fileIdx)
		b.out[i].Case = c
	}
	b.setSources()
	// The cases own copies of their strings, so the bytes can be reused.
	if b.box != nil && cap(b.arena) <= 2*batchBytes {
		*b.box = b.arena[:0]
		arenas.Put(b.box)
	}
	b.arena, b.box = nil, nil
}

// setSources sets each decoded case's Source (file:line, as sourceOf
// writes it), all of them slices of one string: one allocation per batch
// rather than per case.
func (b *batch) setSources() {
	var d [20]byte
	n := 0
	for i := range b.out {
		if b.out[i].Case != nil {
			n += len(b.file) + 1 + decimalLen(b.lines[i].line)
		}
	}
	if n == 0 {
		return
	}
	var sb strings.Builder
	sb.Grow(n)
	for i := range b.out {
		if b.out[i].Case != nil {
			sb.WriteString(b.file)
			sb.WriteByte(':')
			sb.Write(strconv.AppendInt(d[:0], int64(b.lines[i].line), 10))
		}
	}
	all := sb.String()
	for i := range b.out {
		if c := b.out[i].Case; c != nil {
			k := len(b.file) + 1 + decimalLen(b.lines[i].line)
			c.Source, all = all[:k], all[k:]
		}
	}
}

// decimalLen is the number of digits strconv writes for n (n >= 0).
func decimalLen(n int) int {
	k := 1
	for n >= 10 {
		n /= 10
		k++
	}
	return k
}

// presize sizes the duplicate-id set for the whole input from the first
// batch's bytes per line, when the input is local files whose sizes say
// how much is coming (compressed ones say too little, which only leaves
// the rest to the set's growth; the set never reserves more than a chunk).
func (r *Reader) presize(b *batch) {
	if len(b.lines) == 0 {
		return
	}
	used := b.lines[len(b.lines)-1].end - b.lines[0].start + len(b.lines) // + newlines
	var total int64
	for _, p := range r.paths {
		if p == "-" || r.URLs.IsURL(p) {
			return
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		total += fi.Size()
	}
	r.seen.max = r.MaxIDsInMemory
	r.seen.reserve(int(total * int64(len(b.lines)) / int64(used)))
}

// arenas recycles the byte buffers batches copy their lines into. A batch
// of typical lines (a few hundred bytes) fills a quarter of batchBytes, so
// they start at that and grow by append for long lines. The pool holds
// pointers: a slice stored in an interface would allocate on every Put.
var arenas = sync.Pool{New: func() any { b := make([]byte, 0, batchBytes/4); return &b }}

// newBatch starts a batch of file name (index idx) with a pooled arena.
func newBatch(name string, idx int) *batch {
	box := arenas.Get().(*[]byte)
	return &batch{file: name, fileIdx: idx, arena: (*box)[:0], box: box, done: make(chan struct{})}
}

// Scan advances to the next record. It returns false at the end of the
// input or on a fatal error (see Err).
func (r *Reader) Scan() bool {
	if r.closed || r.err != nil {
		return false
	}
	if !r.started {
		r.start()
	}
	for r.cur == nil || r.idx >= len(r.cur.out) {
		var b *batch
		var ok bool
		select {
		case b, ok = <-r.order:
		case <-r.Done:
			return r.stopScan()
		}
		if !ok {
			r.cur = nil
			return r.scanLate()
		}
		select {
		case <-b.done:
		case <-r.Done:
			return r.stopScan()
		}
		if b.fatal != nil {
			r.err = b.fatal
			r.cur = nil
			return false
		}
		r.cur, r.idx = b, 0
		if r.ord == 0 {
			r.presize(b)
		}
		r.seen.max = r.MaxIDsInMemory
		r.seen.init()
		r.sums = r.sums[:0]
		for i := range b.out {
			var h uint64
			if c := b.out[i].Case; c != nil {
				h = r.seen.sum(c.ID)
			}
			r.sums = append(r.sums, h)
		}
		r.seen.prefetch(r.sums)
	}
	rec := r.cur.out[r.idx]
	r.cur.out[r.idx] = Record{}
	ref := r.cur.lines[r.idx]
	sum := r.sums[r.idx]
	r.idx++
	ord := r.ord
	r.ord++
	r.pos.note(ord, r.cur.fileIdx, ref.line, ref.seq)
	if rec.Case != nil && !rec.Case.seqSet {
		// The default seq is the record's position in the whole input,
		// across files (see docs/cases.md), so a session split over two files
		// keeps its order.
		rec.Case.Seq, rec.Case.seqSet = int64(ord)+1, true
	}
	if rec.Case != nil {
		first, dup, err := r.seen.addSum(rec.Case.ID, sum, ord)
		if err != nil {
			r.err, r.rec = err, Record{}
			return false
		}
		if dup {
			rec = Record{Err: r.dupError(rec.Case.ID, ord, first)}
		}
	}
	r.rec = rec
	return true
}

// dupError is the error for record ord, whose id repeats record first's.
func (r *Reader) dupError(id string, ord, first uint32) *LineError {
	fi, fl := r.pos.find(first)
	di, dl := r.pos.find(ord)
	return &LineError{File: r.files[di], Line: dl, Field: "id",
		Msg: fmt.Sprintf("duplicate id %q (first at %s:%d)", id, r.files[fi], fl), kind: "duplicate id"}
}

// scanLate delivers, once every line is read, the duplicates the
// duplicate-id check finds by merging its chunks.
func (r *Reader) scanLate() bool {
	d, ok, err := r.seen.next()
	if err != nil {
		r.err = err
	}
	if !ok {
		r.rec = Record{}
		return false
	}
	r.rec = Record{Err: r.dupError(d.id, d.ord, d.first), Late: true}
	return true
}

// Record returns the record read by the last successful Scan.
func (r *Reader) Record() Record { return r.rec }

// ErrStopped is Err after Reader.Done was closed: the input was not read
// to its end.
var ErrStopped = errors.New("reading the dataset stopped before its end (interrupted)")

// stopScan ends Scan when Done is closed.
func (r *Reader) stopScan() bool {
	r.err, r.stopped, r.cur = ErrStopped, true, nil
	return false
}

// Err returns the fatal error that stopped Scan, or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// Close stops the pipeline and releases its files. It is safe to call
// Close before reading everything, and more than once.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.started {
		close(r.stop)
		if !r.stopped {
			// Drain so a worker or the producer blocked on a send can
			// finish. Once Done stopped Scan, the producer may be blocked
			// in a read that never returns: it is left to end with the
			// process (on its next send it sees stop and exits).
			for range r.order {
			}
			r.wg.Wait()
		}
	}
	err := r.seen.close()
	r.seen, r.pos = idSet{}, positions{}
	return err
}
