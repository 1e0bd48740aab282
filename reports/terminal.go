package reports

import (
	"fmt"
	"io"
)

// Banner prints a line that must not be missed (a filtered run, a partial
// overlap) where the format allows: at the head of out, a blank line
// after, for a table or Markdown; on errOut, prefixed "apeval: ", where
// out is machine-readable.
func Banner(out, errOut io.Writer, f Format, line string) {
	if f == FormatTable || f == FormatMarkdown {
		fmt.Fprintf(out, "%s\n\n", line)
	} else {
		fmt.Fprintf(errOut, "apeval: %s\n", line)
	}
}

// WriteTerminal prints a run's report as a command shows it after
// writing the report files into dir: a filtered run's header, the
// gate-action summary, the tables in format f (rep.Color and rep.Width
// set by the caller), then on errOut the judges whose calls failed (the
// reason the figures may describe a broken setup rather than the judge)
// and where the reports are.
func (rep *Report) WriteTerminal(out, errOut io.Writer, f Format, dir string) error {
	if h := rep.Run.Filter.String(); h != "" {
		// A filtered run is never mistaken for a full one.
		Banner(out, errOut, f, h)
	}
	if f != FormatJSON && rep.Gates != nil {
		if err := rep.Gates.RenderWidth(out, f, rep.Width); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	if err := rep.WriteTables(out, f); err != nil {
		return err
	}
	for _, jf := range rep.Failures {
		for i, l := range jf.Lines() {
			if i == 0 {
				fmt.Fprintf(errOut, "apeval: warning: %s:\n", l)
			} else {
				fmt.Fprintf(errOut, "  %s\n", l)
			}
		}
	}
	if f != FormatJSON {
		fmt.Fprintf(errOut, "apeval: reports in %s\n", dir)
	}
	return nil
}
