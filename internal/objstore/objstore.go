// Package objstore reads datasets and run directories from object storage
// and writes run directories to it, through gocloud.dev/blob.
//
// A location is a URL: s3://bucket/key/prefix (S3 and S3-compatible
// servers; the query carries the bucket's options, e.g.
// ?endpoint=http://127.0.0.1:7070&use_path_style=true&region=us-east-1),
// gs://bucket/prefix (Google Cloud Storage), azblob://container/prefix
// (Azure Blob Storage; ?protocol=http&domain=127.0.0.1:10000 for Azurite)
// or file:///absolute/path (the local file system through the same code,
// used by tests). Every scheme goes through the same code: only opening
// the bucket differs. Credentials come from each cloud SDK's default chain
// (S3: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws, instance roles; GCS:
// Application Default Credentials, see gcs.go; Azure: AZURE_STORAGE_ACCOUNT
// with AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or
// AZURE_STORAGE_CONNECTION_STRING, else DefaultAzureCredential); none is
// ever part of a URL we write down, and every URL and SDK error that
// reaches a message goes through mask.Message (internal/mask; maskerr.go).
package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apeval/apeval/internal/mask"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file://
	"gocloud.dev/gcerrors"
)

// Schemes this build can open: file:// always; s3://, gs:// and azblob://
// unless built with -tags noobjstore (cloud.go). mem:// is known to
// gocloud, not linked.
var linked = map[string]bool{"file": true}

// linkedSchemes names the linked schemes for messages: "s3://, gs://,
// azblob:// and file://".
func linkedSchemes() string {
	var names []string
	for _, s := range []string{"s3", "gs", "azblob", "file"} {
		if linked[s] {
			names = append(names, s+"://")
		}
	}
	if len(names) == 1 {
		return names[0] + " is"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " are"
}

// known are object-storage schemes gocloud has drivers for.
var known = map[string]bool{"s3": true, "file": true, "gs": true, "azblob": true, "mem": true}

// IsURL reports whether s names an object-storage location (scheme://…)
// rather than a local path.
func IsURL(s string) bool {
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	return known[strings.ToLower(s[:i])]
}

// Loc is a parsed location: the bucket to open and a key (or key prefix or
// pattern) inside it.
type Loc struct {
	Scheme string
	Bucket string     // s3: the bucket name; file: empty (the root)
	Key    string     // no leading slash
	Query  url.Values // the bucket's options
}

// Parse splits an object-storage URL into bucket and key.
func Parse(raw string) (Loc, error) {
	if !IsURL(raw) {
		return Loc{}, fmt.Errorf("%s: not an object-storage URL", raw)
	}
	i := strings.Index(raw, "://")
	scheme := strings.ToLower(raw[:i])
	if !linked[scheme] {
		return Loc{}, fmt.Errorf("%s: %s:// is not linked into this build of apeval (%s; see docs/storage.md)", mask.Message(raw), scheme, linkedSchemes())
	}
	rest := raw[i+3:]
	var q url.Values
	if j := strings.IndexByte(rest, '?'); j >= 0 {
		var err error
		if q, err = url.ParseQuery(rest[j+1:]); err != nil {
			return Loc{}, fmt.Errorf("%s: %w", mask.Message(raw), err)
		}
		rest = rest[:j]
	}
	if q == nil {
		q = url.Values{}
	}
	l := Loc{Scheme: scheme, Query: q}
	if scheme == "file" {
		if !strings.HasPrefix(rest, "/") {
			return Loc{}, fmt.Errorf("%s: a file URL needs an absolute path (file:///dir/…)", raw)
		}
		l.Key = strings.TrimPrefix(path.Clean(rest), "/")
		if l.Key == "" || l.Key == "." {
			l.Key = ""
		}
		// No .attrs sidecar files beside the objects: the directory stays
		// readable as a plain run directory.
		if !q.Has("metadata") {
			q.Set("metadata", "skip")
		}
		return l, nil
	}
	b, key, _ := strings.Cut(rest, "/")
	if b == "" {
		return Loc{}, fmt.Errorf("%s: no bucket name", mask.Message(raw))
	}
	l.Bucket, l.Key = b, strings.TrimSuffix(key, "/")
	return l, nil
}

// bucketURL is the URL gocloud opens the bucket with.
func (l Loc) bucketURL() string {
	u := l.Scheme + "://" + l.Bucket
	if l.Scheme == "file" {
		u = "file:///"
	}
	if len(l.Query) > 0 {
		u += "?" + l.Query.Encode()
	}
	return u
}

// With returns the location of key inside the same bucket, as a URL.
func (l Loc) With(key string) string {
	u := l.Scheme + "://" + l.Bucket + "/" + key
	if l.Scheme == "file" {
		u = "file:///" + key
	}
	q := l.Query
	if l.Scheme == "file" && q.Get("metadata") == "skip" && len(q) == 1 {
		q = nil // the default: keep names short
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// Open opens l's bucket.
func (l Loc) Open(ctx context.Context) (*blob.Bucket, error) {
	var b *blob.Bucket
	var err error
	if l.Scheme == "gs" {
		b, err = openGCS(ctx, l.Bucket, l.Query)
	} else {
		b, err = blob.OpenBucket(ctx, l.bucketURL())
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", mask.Message(l.With(l.Key)), maskErr(err))
	}
	return b, nil
}

// hasMeta reports whether s holds a glob metacharacter.
func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// Glob expands a URL whose key may hold path.Match patterns
// (s3://b/cases/*.jsonl.zst) against the bucket's listing, in key order. A
// URL without a pattern is returned as it is when the object exists. No
// match is an error naming the pattern.
func Glob(ctx context.Context, raw string) ([]string, error) {
	l, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	b, err := l.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	if !hasMeta(l.Key) {
		ok, err := b.Exists(ctx, l.Key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mask.Message(raw), maskErr(err))
		}
		if !ok {
			return nil, fmt.Errorf("%s: no such object", mask.Message(raw))
		}
		return []string{raw}, nil
	}
	if _, err := path.Match(l.Key, ""); err != nil {
		return nil, fmt.Errorf("%s: bad pattern: %w", mask.Message(raw), err)
	}
	// List only below the pattern's fixed prefix.
	prefix := l.Key
	if i := strings.IndexAny(prefix, `*?[\`); i >= 0 {
		prefix = prefix[:i]
	}
	var out []string
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", mask.Message(raw), maskErr(err))
		}
		if obj.IsDir {
			continue
		}
		if ok, _ := path.Match(l.Key, obj.Key); ok {
			out = append(out, l.With(obj.Key))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no object matches the pattern", mask.Message(raw))
	}
	sort.Strings(out)
	return out, nil
}

// OpenReader opens an object for streaming: the bytes arrive as they are
// read, nothing is downloaded whole. Closing the reader closes the bucket.
func OpenReader(ctx context.Context, raw string) (io.ReadCloser, error) {
	l, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	b, err := l.Open(ctx)
	if err != nil {
		return nil, err
	}
	r, err := b.NewReader(ctx, l.Key, nil)
	if err != nil {
		_ = b.Close()
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, fmt.Errorf("%s: no such object", mask.Message(raw))
		}
		return nil, fmt.Errorf("%s: %w", mask.Message(raw), maskErr(err))
	}
	return &bucketReader{r, b}, nil
}

type bucketReader struct {
	*blob.Reader
	b *blob.Bucket
}

// Read masks an error from the connection (its text may hold the request's
// URL, and so a SAS signature) on its way to the dataset reader's message.
func (r *bucketReader) Read(p []byte) (int, error) {
	n, err := r.Reader.Read(p)
	if err != nil && err != io.EOF {
		err = maskErr(err)
	}
	return n, err
}

// WriteTo is blob.Reader's, its error masked like Read's (io.Copy would
// otherwise reach the embedded method around Read).
func (r *bucketReader) WriteTo(w io.Writer) (int64, error) {
	n, err := r.Reader.WriteTo(w)
	return n, maskErr(err)
}

func (r *bucketReader) Close() error {
	err := r.Reader.Close()
	if e := r.b.Close(); err == nil {
		err = e
	}
	return err
}

// Commit is the name of the file uploaded last: a prefix that holds it is
// complete.
const Commit = "run.json"

// Upload copies every regular file below dir to the prefix raw, one object
// per file, keeping relative paths; the commit file (run.json) is uploaded
// last, so a reader that sees it sees every other file too. Each object is
// written by WriteObject, which creates the object only when the whole
// file was sent: S3 makes an object visible only when its PUT (or
// multipart upload) completes, GCS when the last chunk of its upload (or
// its single request) arrives, Azure when the block list is committed, and
// fileblob writes a temporary file and renames it. An upload that fails or
// is cancelled part way leaves no object under its final name.
func Upload(ctx context.Context, dir, raw string) error {
	return uploadHook(ctx, dir, raw, nil)
}

// uploadHook is Upload calling before (when set) ahead of each object.
func uploadHook(ctx context.Context, dir, raw string, before func(key string)) error {
	l, err := Parse(raw)
	if err != nil {
		return err
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(files, func(i, j int) bool {
		ci, cj := path.Base(files[i]) == Commit, path.Base(files[j]) == Commit
		if ci != cj {
			return cj
		}
		return files[i] < files[j]
	})
	b, err := l.Open(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	for _, f := range files {
		key := path.Join(l.Key, f)
		if before != nil {
			before(key)
		}
		if err := uploadFile(ctx, b, filepath.Join(dir, filepath.FromSlash(f)), key); err != nil {
			return fmt.Errorf("uploading %s: %w", mask.Message(l.With(key)), maskErr(err))
		}
	}
	return nil
}

// uploadFile streams one file to key; on any error the write is aborted by
// cancelling its context before Close, so no object is created.
func uploadFile(ctx context.Context, b *blob.Bucket, local, key string) error {
	f, err := os.Open(local)
	if err != nil {
		return err
	}
	defer f.Close()
	return WriteObject(ctx, b, key, f)
}

// WriteObject copies r to key atomically: the object appears, complete,
// only when the whole of r was written; an error from r or a cancelled ctx
// aborts the write and leaves no object.
//
// The bytes go through Bucket.Upload, the driver's one-shot upload (each
// driver reads r itself), and r is wrapped so that its first error cancels
// the write's context before the driver can finish: S3 then aborts the
// multipart upload, GCS the resumable upload, Azure never commits the
// staged blocks, fileblob never renames its temporary file. (The other
// way, Write calls then Close after a cancel, makes gocloud v0.47.0's Azure
// writer dereference a nil pipe when the upload failed.)
func WriteObject(ctx context.Context, b *blob.Bucket, key string, r io.Reader) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The content type, sniffed from the first bytes as NewWriter would.
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err // nothing was sent
	}
	head = head[:n]
	ar := &abortReader{r: io.MultiReader(bytes.NewReader(head), r), abort: cancel}
	err = b.Upload(wctx, key, ar, &blob.WriterOptions{ContentType: http.DetectContentType(head)})
	if ar.err != nil {
		return ar.err // the cause; the upload only reports its cancellation
	}
	return err
}

// abortReader cancels the write it feeds at r's first error.
type abortReader struct {
	r     io.Reader
	abort context.CancelFunc
	err   error // read after Upload returned: the driver is done with r
}

func (a *abortReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if err != nil && err != io.EOF {
		a.err = err
		a.abort()
	}
	return n, err
}

// Exists reports whether any object lies below the prefix raw.
func Exists(ctx context.Context, raw string) (bool, error) {
	l, err := Parse(raw)
	if err != nil {
		return false, err
	}
	b, err := l.Open(ctx)
	if err != nil {
		return false, err
	}
	defer b.Close()
	prefix := l.Key
	if prefix != "" {
		prefix += "/"
	}
	it := b.List(&blob.ListOptions{Prefix: prefix})
	_, err = it.Next(ctx)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("listing %s: %w", mask.Message(raw), maskErr(err))
	}
	return true, nil
}

// ErrNoRun is returned by Download when the prefix holds no run.json.
var ErrNoRun = errors.New("no run.json below this prefix (not a run directory, or its upload did not finish)")

// Download copies every object below the prefix raw into dir, keeping the
// relative keys as paths. It requires run.json to be there (an upload that
// did not finish has none); set anyPrefix to copy whatever is there.
func Download(ctx context.Context, raw, dir string, anyPrefix bool) error {
	l, err := Parse(raw)
	if err != nil {
		return err
	}
	b, err := l.Open(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	prefix := l.Key
	if prefix != "" {
		prefix += "/"
	}
	it := b.List(&blob.ListOptions{Prefix: prefix})
	found := false
	n := 0
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", mask.Message(raw), maskErr(err))
		}
		rel := strings.TrimPrefix(obj.Key, prefix)
		if obj.IsDir || rel == "" {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return fmt.Errorf("%s: object key %q leaves the prefix", mask.Message(raw), obj.Key)
		}
		if rel == Commit {
			found = true
		}
		if err := downloadFile(ctx, b, obj.Key, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("downloading %s: %w", mask.Message(l.With(obj.Key)), maskErr(err))
		}
		n++
	}
	if !found && !anyPrefix {
		return fmt.Errorf("%s: %w", mask.Message(raw), ErrNoRun)
	}
	if n == 0 {
		return fmt.Errorf("%s: no objects below this prefix", mask.Message(raw))
	}
	return nil
}

func downloadFile(ctx context.Context, b *blob.Bucket, key, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	r, err := b.NewReader(ctx, key, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(dest)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
