package main

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/apeval/apeval/metrics"
	"github.com/apeval/apeval/reports"
	"github.com/apeval/apeval/reports/rundir"
)

// enumFlag is a string flag that takes one of a fixed set of values and
// rejects any other when the command line is parsed — before a file is
// read or a judge opened — with the allowed values in the message and in
// --help (the flag's type is shown as a|b|c, as gh's and vegeta's enum
// flags do). check, when set, is the flag's own test (aliases, case); it
// returns the usage error to print. "" is the unset value and always
// allowed: it means the command's default.
type enumFlag struct {
	p       *string
	allowed []string
	check   func(string) error
}

func (e *enumFlag) String() string { return *e.p }
func (e *enumFlag) Type() string   { return strings.Join(e.allowed, "|") }
func (e *enumFlag) Set(v string) error {
	if v != "" {
		if err := e.check(v); err != nil {
			return err
		}
	}
	*e.p = v
	return nil
}

// enumVar defines an enum flag on fs. check returns a usageError for a
// value that is not allowed (the message the command printed before the
// value was checked at parse time; flagError prints it as it is).
func enumVar(fs *pflag.FlagSet, p *string, name, value string, allowed []string, check func(string) error, usage string) *pflag.Flag {
	*p = value
	fs.Var(&enumFlag{p: p, allowed: allowed, check: check}, name, usage)
	return fs.Lookup(name)
}

// enumArray is a repeatable enum flag: each occurrence appends one value,
// checked as enumFlag checks its one.
type enumArray struct {
	p       *[]string
	allowed []string
	check   func(string) error
}

func (e *enumArray) String() string { return strings.Join(*e.p, ",") }
func (e *enumArray) Type() string   { return strings.Join(e.allowed, "|") }
func (e *enumArray) Set(v string) error {
	if err := e.check(v); err != nil {
		return err
	}
	*e.p = append(*e.p, v)
	return nil
}

// byVar defines --by: per-slice metrics by tag, tool or category
// (repeatable).
func byVar(fs *pflag.FlagSet, p *[]string) {
	fs.Var(&enumArray{p: p, allowed: metrics.SliceKinds, check: func(v string) error {
		if err := metrics.CheckSlices([]string{v}); err != nil {
			return usagef("--by: %v", err)
		}
		return nil
	}}, "by", "add per-slice metrics: tag, tool or category (repeatable)")
}

// formatValues are --format's values (reports.ParseFormat also takes md).
var formatValues = []string{string(reports.FormatTable), string(reports.FormatTSV), string(reports.FormatCSV), string(reports.FormatMarkdown), string(reports.FormatJSON)}

// formatVar defines --format: table, tsv, csv, markdown or json ("" = by the
// output stream).
func formatVar(fs *pflag.FlagSet, p *string, usage string) {
	enumVar(fs, p, "format", "", formatValues, parseFormat, usage)
}

// inconclusiveVar defines --inconclusive: pass or fail ("" = exit 3).
func inconclusiveVar(fs *pflag.FlagSet, p *string) {
	enumVar(fs, p, "inconclusive", "", []string{"pass", "fail"}, checkInconclusive,
		"map an INCONCLUSIVE verdict's exit code: pass (0) or fail (1); default 3")
}

// layoutVar defines --out-layout: flat or hive.
func layoutVar(fs *pflag.FlagSet, p *string) {
	enumVar(fs, p, "out-layout", "flat", []string{"flat", rundir.LayoutHive}, func(v string) error {
		if _, err := rundir.ParseLayout(v); err != nil {
			return usagef("--out-layout: %v", err)
		}
		return nil
	}, layoutUsage)
}

// flagError is the root's flag error function: every flag error is a usage
// error (exit 2). An enum flag's own usage error is printed as it is,
// without pflag's `invalid argument "x" for "--flag" flag:` prefix, so the
// message is the one the command gave before values were checked at parse
// time.
func flagError(err error) error {
	var iv *pflag.InvalidValueError
	var ue usageError
	if errors.As(err, &iv) && errors.As(iv.Unwrap(), &ue) {
		return ue
	}
	return usageError{err}
}
