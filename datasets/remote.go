package datasets

import (
	"io"
	"os"
	"strings"

	"github.com/apeval/apeval/internal/mask"
)

// Datasets in object storage: a name with a scheme (s3://bucket/key) is
// opened through the opener the program installs with SetURLOpener, and
// streamed like a local file (decompressed by magic bytes, never read whole
// into memory). The datasets package itself links no cloud SDK.

var urlOpener func(name string) (io.ReadCloser, error)

// SetURLOpener installs how names with a scheme ("s3://…") are opened.
func SetURLOpener(open func(name string) (io.ReadCloser, error)) { urlOpener = open }

// IsURL reports whether name is opened through the URL opener.
func IsURL(name string) bool {
	return urlOpener != nil && strings.Contains(name, "://")
}

// displayName is how a dataset name appears in messages: a URL masked
// (a query or the environment may hold a credential).
func displayName(name string) string {
	if IsURL(name) {
		return mask.Message(name)
	}
	return name
}

// openPath opens a local file or, for a URL, a stream of the object.
func openPath(name string) (io.ReadCloser, error) {
	if IsURL(name) {
		return urlOpener(name)
	}
	return os.Open(name)
}
