package objstore

import (
	"errors"
	"strings"
	"testing"

	"gocloud.dev/gcerrors"
)

// Throwaway values shaped like the real ones.
const (
	testAccountKey = "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0g=="
	testSig        = "k3Y%2Fs1gn4tUr3ValueXyZ%3D"
	testSAS        = "sv=2023-11-03&ss=b&srt=sco&sp=rwdlac&se=2030-01-01T00%3A00%3A00Z&sig=" + testSig
)

// maskErr keeps the error's identity for errors.Is and gcerrors, and masks
// its text.
func TestMaskErr(t *testing.T) {
	t.Setenv("AZURE_STORAGE_KEY", testAccountKey)
	base := errors.New("dial " + testAccountKey)
	err := maskErr(base)
	if !errors.Is(err, base) || strings.Contains(err.Error(), testAccountKey) || gcerrors.Code(err) != gcerrors.Unknown {
		t.Errorf("maskErr: %v (Is %v)", err, errors.Is(err, base))
	}
}
