package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/apeval/apeval/internal/mask"
)

// ClaimObject is the object a run writing to a prefix creates first, with
// a conditional create, and removes once its upload is complete (or when
// it uploads nothing). Two runs started at once into one prefix both find
// it unused; only one can create the claim.
const ClaimObject = ".apeval-claim"

// ErrPrefixInUse is returned by Claim when another run holds the prefix or
// objects are already there.
var ErrPrefixInUse = errors.New("the prefix is in use by another run or already holds objects")

// Claim takes the prefix raw for one run: it creates ClaimObject below it
// only if it does not exist (S3 If-None-Match, GCS and Azure preconditions;
// file:// an O_EXCL create, since fileblob's own check is a stat then a
// rename, safe only within one process), then checks that nothing else is
// below the prefix (a run that finished and dropped its claim left its
// objects). release removes the claim.
func Claim(ctx context.Context, raw string) (release func(context.Context) error, err error) {
	l, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	key := path.Join(l.Key, ClaimObject)
	if l.Scheme == "file" {
		p := filepath.FromSlash("/" + key)
		// The directories the claim makes go with it when nothing else
		// was put in them.
		created := ""
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
				break
			}
			created = d
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("claiming %s: %w", mask.Message(raw), err)
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s: %w", mask.Message(raw), ErrPrefixInUse)
		}
		if err != nil {
			return nil, fmt.Errorf("claiming %s: %w", mask.Message(raw), err)
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		release = func(context.Context) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			for d := filepath.Dir(p); created != "" && len(d) >= len(created); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break // not empty: the run's upload is in it
				}
			}
			return nil
		}
	} else {
		b, err := l.Open(ctx)
		if err != nil {
			return nil, err
		}
		err = b.Upload(ctx, key, strings.NewReader("apeval run in progress\n"), &blob.WriterOptions{IfNotExist: true, ContentType: "text/plain"})
		_ = b.Close()
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			return nil, fmt.Errorf("%s: %w", mask.Message(raw), ErrPrefixInUse)
		}
		if err != nil {
			return nil, fmt.Errorf("claiming %s: %w", mask.Message(raw), maskErr(err))
		}
		release = func(ctx context.Context) error {
			b, err := l.Open(ctx)
			if err != nil {
				return err
			}
			defer b.Close()
			if err := b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
				return fmt.Errorf("removing %s: %w", mask.Message(l.With(key)), maskErr(err))
			}
			return nil
		}
	}
	if other, err := holdsOther(ctx, l, key); err != nil || other {
		rerr := release(ctx)
		if err == nil {
			err = fmt.Errorf("%s: %w", mask.Message(raw), ErrPrefixInUse)
		}
		return nil, errors.Join(err, rerr)
	}
	return release, nil
}

// holdsOther reports whether an object other than claim lies below l.Key.
func holdsOther(ctx context.Context, l Loc, claim string) (bool, error) {
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
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("listing %s: %w", mask.Message(l.With(l.Key)), maskErr(err))
		}
		if o.Key != claim {
			return true, nil
		}
	}
}
