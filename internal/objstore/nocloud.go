//go:build noobjstore

package objstore

import (
	"context"
	"errors"
	"net/url"

	"gocloud.dev/blob"
)

// openGCS is never reached in a noobjstore build: gs:// is not linked.
func openGCS(context.Context, string, url.Values) (*blob.Bucket, error) {
	return nil, errors.New("gs:// is not linked into this build of apeval (built with -tags noobjstore)")
}
