package source

import (
	"context"
	"fmt"
	"io"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/objstore"
)

// URLs opens object-storage URLs (docs/storage.md: s3://, gs://,
// azblob:// or file://) for the datasets package, which links no cloud SDK
// (apeval-record imports it): every read of a dataset passes it this
// opener (OpenReader, datasets.ScanRaw's last argument). Every URL shown in
// a message or written into run.json goes through mask.Message.
var URLs datasets.Opener = func(name string) (io.ReadCloser, error) {
	return objstore.OpenReader(context.Background(), name)
}

// OpenReader is datasets.Open with object-storage URLs readable.
func OpenReader(paths []string, stdin io.Reader) *datasets.Reader {
	r := datasets.Open(paths, stdin)
	r.URLs = URLs
	return r
}

// expand replaces each object-storage URL among paths by the
// objects its pattern matches in the bucket's listing (s3://b/cases/*.jsonl.zst),
// in key order; local paths are kept as given.
func expand(ctx context.Context, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !objstore.IsURL(p) {
			out = append(out, p)
			continue
		}
		urls, err := objstore.Glob(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, urls...)
	}
	return out, nil
}

// WeakLabels reads the weak labels of the datasets at paths
// (datasets.ReadWeakLabels), in dataset order: each unreadable line is
// handed to bad, and any makes it an error ("N unreadable dataset
// lines"), since a weak label read from part of a dataset would be
// silently missing.
func WeakLabels(paths []string, stdin io.Reader, bad func(error)) ([]datasets.WeakLabel, error) {
	weak, n, err := datasets.ReadWeakLabels(OpenReader(paths, stdin), bad)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		return nil, fmt.Errorf("%d unreadable dataset lines", n)
	}
	return weak, nil
}
