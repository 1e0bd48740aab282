package metrics

import (
	"fmt"
	"math"
)

// DeffShown is the design effect above which every output prints it beside
// an interval or in a criterion's reason ("deff 1.85"): tables, reasons,
// pages, the PR comment and junit alike (docs/statistics.md). Below it
// clustering widens an interval by less than about 10 % (√1.2 = 1.095),
// which the interval itself already shows; summary.json and Parquet keep
// every value (`<figure>_deff`).
const DeffShown = 1.2

// DeffNote is "deff 1.85" for a design effect that is shown, "" otherwise:
// the one place that decides whether a deff is printed and how. The test
// is on the printed value, so a shown deff always reads above 1.20.
func DeffNote(d float64) string {
	if math.IsNaN(d) || math.IsInf(d, 0) || math.Round(d*100)/100 <= DeffShown {
		return ""
	}
	return fmt.Sprintf("deff %.2f", d)
}
