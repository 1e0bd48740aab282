// Package cache is the judges' on-disk answer cache (a bbolt file shared
// by concurrent runs): Cached wraps a live judge so that an input asked
// before, of the same identity and scope, is answered from disk. Not a
// stable Go API: apeval is a command, its packages serve it.
//
// Where to look:
//
//	cache.go           Open, Cache, Cached, Judge, the key (InputDigest)
//	cache_test.go      hits, scopes, sharing across runs and processes, damage
//	cachedisk_test.go  a full disk is not damage
//	scope_test.go      a budgeted judge keeps its cache scope
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/apeval/apeval/judge"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Cache persists judge answers on disk (bbolt) so a rerun or a resumed run
// asks a judge nothing it has answered before (see docs/judges.md).
//
// The key is the judge's identity (backend/model@digest+prompt), the
// settings its answers depend on (server URL, options) and the SHA-256 of
// the RFC 8785 (JCS) canonical judge input. Only completed answers are kept:
// ok and invalid. An invalid answer is what that model says to that input at
// temperature 0, so it is replayed like an ok one and a rerun reproduces the
// same metrics; timeouts and errors describe the server, not the model, and
// are asked again. Recorded and none judges are never cached.
//
// Writes go to a background goroutine that commits them in batches (one
// fsync for many answers); a lookup sees answers not yet committed. Close
// flushes them.
//
// Sharing: bbolt locks its file exclusively. A second run on the same
// directory waits briefly for the lock, then works on a private file
// (pending-*.db in the same directory) and warns (Warning); at Close it
// merges that file into the shared one if the lock is free, else leaves it
// for the next run that opens the shared file to merge. No answer is lost and
// two runs never block each other for long.
type Cache struct {
	db      *bolt.DB
	dir     string
	path    string // the file in use
	private bool
	warning string

	mu      sync.Mutex // guards pending and werr
	pending map[string][]byte
	// sendMu guards closed and the channel: senders hold it shared, Close
	// exclusively, so the channel is never closed under a sender.
	sendMu sync.RWMutex
	closed bool
	puts   chan cacheEntry
	done   chan struct{}
	werr   error // first write error, reported by Close
}

type cacheEntry struct {
	key, value []byte
}

// cacheFile is the shared cache file in a cache directory.
const cacheFile = "judge-cache.db"

var cacheBucket = []byte("answers")

// cacheLockWait is how long Open waits for another run's lock before
// falling back to a private file.
var cacheLockWait = 500 * time.Millisecond

// cacheMergeWait is how long a private cache's Close waits for the shared
// file before leaving its answers for a later run to merge.
var cacheMergeWait = 2 * time.Second

// DefaultDir is the user cache directory's apeval folder
// (~/.cache/apeval on Linux).
func DefaultDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory (use --cache DIR or --no-cache): %w", err)
	}
	return filepath.Join(d, "apeval"), nil
}

// Open opens (creating it if needed) the cache in dir; "" means
// DefaultDir. When the shared file is free, pending files left by
// earlier concurrent runs are merged into it.
func Open(dir string) (*Cache, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	c := &Cache{dir: dir, path: filepath.Join(dir, cacheFile), pending: map[string][]byte{},
		puts: make(chan cacheEntry, 1024), done: make(chan struct{})}
	_, statErr := os.Stat(c.path)
	isNew := os.IsNotExist(statErr)
	db, err := openBolt(c.path, cacheLockWait)
	switch {
	case diskFull(err):
		// Not damage: the disk (or a file size limit) has no room for the
		// cache. A file this call started is removed; one that was there
		// is left as it is.
		if isNew {
			_ = os.Remove(c.path)
		}
		return nil, fmt.Errorf("cache %s: no room to write it: the disk is full or a file size limit applies (%v); free space, or run with --no-cache", c.path, unwrapDamage(err))
	case errors.Is(err, berrors.ErrTimeout):
		f, ferr := os.CreateTemp(dir, "pending-*.db")
		if ferr != nil {
			return nil, fmt.Errorf("cache: %w", ferr)
		}
		c.path = f.Name()
		if ferr := f.Close(); ferr != nil {
			return nil, fmt.Errorf("cache: %w", ferr)
		}
		// An empty file is not a bbolt file: let bbolt create it.
		if ferr := os.Remove(c.path); ferr != nil {
			return nil, fmt.Errorf("cache: %w", ferr)
		}
		db, err = openBolt(c.path, cacheLockWait)
		if err != nil {
			return nil, fmt.Errorf("cache %s: %w", c.path, err)
		}
		c.private = true
		c.warning = fmt.Sprintf("cache %s is in use by another run; this run caches into %s and merges it back when the shared file is free",
			filepath.Join(dir, cacheFile), filepath.Base(c.path))
	case err != nil:
		// A damaged file (a crash of the disk, not of bbolt, or bytes
		// overwritten) is moved aside and the run starts an empty cache:
		// the answers are a saving, not a record.
		damage := err
		aside := fmt.Sprintf("%s.damaged-%s", c.path, time.Now().UTC().Format("20060102T150405Z"))
		if rerr := os.Rename(c.path, aside); rerr != nil {
			return nil, fmt.Errorf("cache %s is damaged (%v) and cannot be moved aside (%v); delete it", c.path, damage, rerr)
		}
		db, err = openBolt(c.path, cacheLockWait)
		if err != nil {
			return nil, fmt.Errorf("cache %s: %w", c.path, err)
		}
		c.warning = fmt.Sprintf("cache %s was damaged (%v); moved it aside to %s and started an empty cache (--no-cache runs without one)",
			c.path, damage, filepath.Base(aside))
	default:
		if err := mergePending(db, dir, ""); err != nil {
			c.warning = "cache: " + err.Error()
		}
	}
	c.db = db
	go c.writer()
	return c, nil
}

// diskFull reports whether err is a write refused for want of space: a full
// disk, a quota, or a file size limit (ulimit -f).
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EFBIG)
}

// unwrapDamage returns the error under errDamaged's wrapping, for a message.
func unwrapDamage(err error) error {
	if u, ok := err.(interface{ Unwrap() []error }); ok {
		if es := u.Unwrap(); len(es) == 2 && es[0] == errDamaged {
			return es[1]
		}
	}
	return err
}

// errDamaged marks a cache file bbolt cannot read (it panics on some
// damaged pages; openBolt turns that into this error).
var errDamaged = errors.New("damaged cache file")

// openBolt opens a cache file and reads every entry once, so that a file
// damaged anywhere in its answers fails here, as an error, rather than
// panicking in the middle of a run.
func openBolt(path string, wait time.Duration) (db *bolt.DB, err error) {
	defer func() {
		if p := recover(); p != nil {
			if db != nil {
				_ = db.Close()
			}
			db, err = nil, fmt.Errorf("%w: %v", errDamaged, p)
		}
	}()
	db, err = bolt.Open(path, 0o644, &bolt.Options{Timeout: wait})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errDamaged, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(cacheBucket)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error { return nil })
	}); err != nil {
		return nil, errors.Join(fmt.Errorf("%w: %w", errDamaged, err), db.Close())
	}
	return db, nil
}

// mergePending copies every pending-*.db in dir (except skip) into db and
// removes it; a file still locked by its live run is left alone.
func mergePending(db *bolt.DB, dir, skip string) error {
	files, err := filepath.Glob(filepath.Join(dir, "pending-*.db"))
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		if f == skip {
			continue
		}
		var src *bolt.DB
		err := safeBolt(func() (err error) {
			src, err = bolt.Open(f, 0o644, &bolt.Options{Timeout: 50 * time.Millisecond, ReadOnly: true})
			return err
		})
		if errors.Is(err, berrors.ErrTimeout) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("merge %s: %w", filepath.Base(f), err))
			continue
		}
		err = safeBolt(func() error {
			return src.View(func(stx *bolt.Tx) error {
				b := stx.Bucket(cacheBucket)
				if b == nil {
					return nil
				}
				return db.Update(func(tx *bolt.Tx) error {
					dst := tx.Bucket(cacheBucket)
					return b.ForEach(func(k, v []byte) error { return dst.Put(k, v) })
				})
			})
		})
		if cerr := src.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Remove(f)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("merge %s: %w", filepath.Base(f), err))
		}
	}
	return errors.Join(errs...)
}

// Warning says why the cache is not the shared file (another run holds it)
// or what went wrong merging earlier pending files; "" when all is well.
func (c *Cache) Warning() string { return c.warning }

// Path is the file this run reads and writes.
func (c *Cache) Path() string { return c.path }

// writer commits queued answers, batching whatever is queued at once.
func (c *Cache) writer() {
	defer close(c.done)
	for first := range c.puts {
		batch := []cacheEntry{first}
	more:
		for len(batch) < 512 {
			select {
			case e, ok := <-c.puts:
				if !ok {
					break more
				}
				batch = append(batch, e)
			default:
				break more
			}
		}
		err := safeBolt(func() error {
			return c.db.Update(func(tx *bolt.Tx) error {
				b := tx.Bucket(cacheBucket)
				for _, e := range batch {
					if err := b.Put(e.key, e.value); err != nil {
						return err
					}
				}
				return nil
			})
		})
		c.mu.Lock()
		if err != nil && c.werr == nil {
			c.werr = err
		}
		for _, e := range batch {
			delete(c.pending, string(e.key))
		}
		c.mu.Unlock()
	}
}

func (c *Cache) get(key []byte) ([]byte, bool) {
	c.sendMu.RLock()
	defer c.sendMu.RUnlock()
	c.mu.Lock()
	v, ok := c.pending[string(key)]
	c.mu.Unlock()
	if ok || c.closed {
		return v, ok
	}
	err := safeBolt(func() error {
		return c.db.View(func(tx *bolt.Tx) error {
			if got := tx.Bucket(cacheBucket).Get(key); got != nil {
				v = append([]byte(nil), got...)
				ok = true
			}
			return nil
		})
	})
	return v, ok && err == nil
}

func (c *Cache) put(key, value []byte) {
	c.sendMu.RLock()
	defer c.sendMu.RUnlock()
	if c.closed {
		return
	}
	c.mu.Lock()
	c.pending[string(key)] = value
	c.mu.Unlock()
	c.puts <- cacheEntry{key: key, value: value}
}

// Close commits queued answers and closes the file. A private cache is then
// merged into the shared file if that is free, else left for a later run.
func (c *Cache) Close() error {
	c.sendMu.Lock()
	if c.closed {
		c.sendMu.Unlock()
		return nil
	}
	c.closed = true
	close(c.puts)
	c.sendMu.Unlock()
	<-c.done
	err := errors.Join(c.werr, c.db.Close())
	if err != nil || !c.private {
		return err
	}
	shared, oerr := openBolt(filepath.Join(c.dir, cacheFile), cacheMergeWait)
	if errors.Is(oerr, berrors.ErrTimeout) {
		return nil // still in use: the next run to open it merges this file
	}
	if oerr != nil {
		return fmt.Errorf("cache: merge into %s: %w", cacheFile, oerr)
	}
	return errors.Join(mergePending(shared, c.dir, ""), shared.Close())
}

// cachedAnswer is the stored form of an answer. LatencyNS is the latency
// measured when the answer was made: a hit counts with it, so a rerun on a
// warm cache gives the figures of the run that filled it. An entry without
// it (written by an apeval before 0.x stored latencies) is asked again.
type cachedAnswer struct {
	Status    judge.Status     `json:"status"`
	Error     string           `json:"error,omitempty"`
	Decisions []judge.Decision `json:"decisions"`
	LatencyNS *int64           `json:"latency_ns,omitempty"`
}

// Cached wraps a judge with the cache. Hits come back with Cached set, the
// Latency measured when the answer was made and Attempts 0, and never reach
// the judge. A judge that calls no model (not judge.IsLive: recorded,
// none) and a nil cache return j unchanged.
func Cached(j judge.Judge, c *Cache) judge.Judge {
	if c == nil || !judge.IsLive(j) {
		return j
	}
	prefix := j.Identity().String() + "\x00"
	if s, ok := scopeOf(j); ok {
		// A digest, not the scope: options and URLs may carry credentials,
		// and the cache file is one more place they must not reach.
		sum := sha256.Sum256([]byte(s.CacheScope()))
		prefix += fmt.Sprintf("%x", sum[:16])
	}
	return &Judge{judge: j, cache: c, prefix: prefix + "\x00"}
}

// scopeOf finds the backend's scope under wrappers (a Budget's).
func scopeOf(j judge.Judge) (judge.CacheScoper, bool) {
	for {
		if s, ok := j.(judge.CacheScoper); ok {
			return s, true
		}
		u, ok := j.(interface{ Unwrap() judge.Judge })
		if !ok {
			return nil, false
		}
		j = u.Unwrap()
	}
}

// Judge is a judge answered from the cache when it can be.
type Judge struct {
	judge  judge.Judge
	cache  *Cache
	prefix string

	// flights are the calls in flight by key: an identical input asked
	// meanwhile waits for that answer and is a cache hit at its latency,
	// instead of a second call whose latency a warm rerun could not
	// reproduce (the cache keeps one answer, and one latency, per input).
	mu      sync.Mutex
	flights map[string]chan struct{}
}

// Identity is the wrapped judge's.
func (cj *Judge) Identity() judge.Identity { return cj.judge.Identity() }

// Unwrap returns the wrapped judge (for Details, StructuredMode, Close).
func (cj *Judge) Unwrap() judge.Judge { return cj.judge }

// Details forwards to the wrapped judge when it has them.
func (cj *Judge) Details() map[string]string {
	if d, ok := cj.judge.(judge.Describer); ok {
		return d.Details()
	}
	return nil
}

// Close closes the wrapped judge if it holds resources (exec children); the
// cache itself is closed by its owner.
func (cj *Judge) Close() error {
	if c, ok := cj.judge.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// Judge answers from the cache or asks the wrapped judge and stores its
// completed answer.
func (cj *Judge) Judge(ctx context.Context, req judge.Request) judge.Response {
	key, err := cj.key(req.Input)
	if err == nil && req.Repeat > 0 {
		// Repeat 0 keeps the key of a call made once, so a run with
		// --repeat starts from the answers a plain run cached.
		key = append(key, fmt.Sprintf("\x00repeat=%d", req.Repeat)...)
	}
	if err != nil {
		return cj.judge.Judge(ctx, req)
	}
	for {
		if v, ok := cj.cache.get(key); ok {
			var a cachedAnswer
			if json.Unmarshal(v, &a) == nil && modelAnswer(a) && a.LatencyNS != nil {
				return judge.Response{Decisions: a.Decisions, Status: a.Status, Error: a.Error, Cached: true,
					Latency: time.Duration(*a.LatencyNS)}
			}
		}
		cj.mu.Lock()
		wait, busy := cj.flights[string(key)]
		if !busy {
			if cj.flights == nil {
				cj.flights = map[string]chan struct{}{}
			}
			cj.flights[string(key)] = make(chan struct{})
		}
		cj.mu.Unlock()
		if !busy {
			break
		}
		select {
		case <-wait: // answered (then cached: a hit above) or failed (then asked again)
		case <-ctx.Done():
			resp, _ := judge.Failed(ctx, ctx.Err())
			return resp
		}
	}
	defer func() {
		cj.mu.Lock()
		done := cj.flights[string(key)]
		delete(cj.flights, string(key))
		cj.mu.Unlock()
		close(done)
	}()
	resp := cj.judge.Judge(ctx, req)
	if (resp.Status == judge.StatusOK || resp.Status == judge.StatusInvalid) && !resp.NoCache {
		ns := int64(resp.Latency)
		if v, err := json.Marshal(cachedAnswer{Status: resp.Status, Error: resp.Error, Decisions: resp.Decisions, LatencyNS: &ns}); err == nil {
			cj.cache.put(key, v)
		}
	}
	return resp
}

// modelAnswer reports whether a cache entry is a model's answer: valid, or
// an invalid answer the model gave. Older versions also cached a body with
// no completion in it (a server error sent with HTTP 200); such an entry is
// a miss, so the call goes to the server again.
func modelAnswer(a cachedAnswer) bool {
	switch {
	case a.Status == judge.StatusOK:
		return true
	case a.Status != judge.StatusInvalid:
		return false
	}
	return a.Error != "completion has no choices" && a.Error != "completion has no content"
}

// key is prefix + SHA-256 of the canonical input.
func (cj *Judge) key(in judge.Input) ([]byte, error) {
	sum, err := inputSum(in)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 0, len(cj.prefix)+len(sum))
	key = append(key, cj.prefix...)
	return append(key, sum[:]...), nil
}

// InputDigest is the lowercase hex SHA-256 of the canonical (JCS) judge
// input, the input part of a cache key.
func InputDigest(in judge.Input) (string, error) {
	sum, err := inputSum(in)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sum), nil
}

// inputSum hashes the JCS form of the input, written directly (a generic
// parse-and-reserialize cost more than a cache hit's lookup).
func inputSum(in judge.Input) ([sha256.Size]byte, error) {
	var c judge.Canonical
	buf := canonBufs.Get().(*[]byte)
	b := c.AppendInput((*buf)[:0], in)
	sum := sha256.Sum256(b)
	*buf = b
	canonBufs.Put(buf)
	return sum, nil
}

var canonBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// safeBolt runs fn, turning a bbolt panic (it panics on some damaged pages
// rather than returning an error) into errDamaged: a damaged cache costs
// its answers, never the run.
func safeBolt(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", errDamaged, p)
		}
	}()
	return fn()
}
