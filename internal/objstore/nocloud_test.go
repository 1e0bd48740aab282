//go:build noobjstore

package objstore

import (
	"strings"
	"testing"
)

// A build with -tags noobjstore links file:// only, and says so.
func TestNoCloudSchemes(t *testing.T) {
	for _, u := range []string{"s3://b/k", "gs://b/k", "azblob://c/k"} {
		if _, err := Parse(u); err == nil || !strings.Contains(err.Error(), "is not linked into this build of apeval (file:// is;") {
			t.Errorf("%s: err = %v", u, err)
		}
	}
	if l, err := Parse("file:///tmp/runs/x"); err != nil || l.Scheme != "file" {
		t.Errorf("file://: %+v, %v", l, err)
	}
}
