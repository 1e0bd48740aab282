//go:build !unix

package importers

import "os"

// AppendLine appends line with one O_APPEND write (no advisory lock on
// this platform).
func AppendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// openNoBlock opens path for reading (no FIFOs to wait for on this
// platform).
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
