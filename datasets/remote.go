package datasets

import (
	"io"
	"os"
	"strings"

	"github.com/apeval/apeval/internal/mask"
)

// Opener opens dataset names with a scheme (s3://bucket/key) as streams,
// read like a local file (decompressed by magic bytes, never whole into
// memory). The datasets package itself links no cloud SDK (apeval-record
// imports it): the program passes its opener where it reads datasets, as
// Reader.URLs or the last argument of ScanRaw and OpenInput. A nil Opener
// reads local files only.
type Opener func(name string) (io.ReadCloser, error)

// IsURL reports whether name is opened through o.
func (o Opener) IsURL(name string) bool {
	return o != nil && strings.Contains(name, "://")
}

// display is how a dataset name appears in messages: a URL masked (a
// query or the environment may hold a credential).
func (o Opener) display(name string) string {
	if o.IsURL(name) {
		return mask.Message(name)
	}
	return name
}

// open opens a local file or, for a URL, a stream of the object.
func (o Opener) open(name string) (io.ReadCloser, error) {
	if o.IsURL(name) {
		return o(name)
	}
	return os.Open(name)
}

// first is the optional Opener argument of ScanRaw and OpenInput.
func first(urls []Opener) Opener {
	if len(urls) > 0 {
		return urls[0]
	}
	return nil
}
