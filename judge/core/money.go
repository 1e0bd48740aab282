package core

import (
	"math"
	"strconv"
)

// USD formats an amount of money with four decimals, or with as many as
// its first two significant digits need when it is smaller (a budget of
// 0.000001 is "0.0000010", never "0.0000").
func USD(v float64) string {
	prec := 4
	if a := math.Abs(v); a > 0 && a < 0.001 {
		prec = int(-math.Floor(math.Log10(a))) + 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
