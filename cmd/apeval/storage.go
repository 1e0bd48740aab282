package main

import (
	"context"
	"io"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/objstore"
)

// Object storage (docs/storage.md): datasets, run directories and merge
// inputs may be s3://, gs://, azblob:// or file:// URLs. Every URL shown in a message or
// written into run.json goes through mask.Message. The datasets package
// links no cloud SDK (apeval-record imports it), so every read of a
// dataset passes it this opener (openDatasets, datasets.ScanRaw's last
// argument).
var datasetURLs datasets.Opener = func(name string) (io.ReadCloser, error) {
	return objstore.OpenReader(context.Background(), name)
}

// openDatasets is datasets.Open with object-storage URLs readable.
func openDatasets(paths []string, stdin io.Reader) *datasets.Reader {
	r := datasets.Open(paths, stdin)
	r.URLs = datasetURLs
	return r
}

// expandDatasets replaces each object-storage URL among paths by the
// objects its pattern matches in the bucket's listing (s3://b/cases/*.jsonl.zst),
// in key order; local paths are kept as given.
func expandDatasets(ctx context.Context, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if !objstore.IsURL(p) {
			out = append(out, p)
			continue
		}
		urls, err := objstore.Glob(ctx, p)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, urls...)
	}
	return out, nil
}
