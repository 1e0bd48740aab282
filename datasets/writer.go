package datasets

import (
	"bytes"
	"encoding/json"
	"io"
)

// WriteJSONL writes c as one apeval.case/v1 JSON line. Fields the reader
// ignored on input (unknown keys) are not written; defaults the reader
// filled in are, so the output reads back to an equal Case.
func WriteJSONL(w io.Writer, c *Case) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // commands and conditions stay readable: no \u003c for <
	if err := enc.Encode(c); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
