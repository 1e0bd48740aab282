package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// FileSHA256 is the hex SHA-256 of a dataset file, or of an object read
// through urls, as it streams by; "" when it cannot be read.
func FileSHA256(name string, urls Opener) string {
	f, err := urls.open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
