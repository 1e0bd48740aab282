//go:build !noobjstore

package objstore

import (
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/s3blob"    // s3:// (gs:// is opened in gcs.go)
)

// The cloud drivers: about three quarters of the binary's third-party
// packages. `go build -tags noobjstore` leaves them out (file:// only;
// docs/storage.md).
func init() {
	linked["s3"], linked["gs"], linked["azblob"] = true, true, true
}
