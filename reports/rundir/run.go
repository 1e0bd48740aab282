// Package rundir is the run directory's format: run.json ([RunInfo]), the
// decisions and gates Parquet files written while the replay streams
// ([RunWriter]) and read back into the identical replay.Results
// ([ReadRun]), shards ([ShardSet]), the hive layout, the directory's lock
// and the stash of an earlier run, and atomic writes. Every reader of a
// run directory goes through it; the renderers in reports format what
// metrics computed from it. Not a stable Go API: apeval is a command, its
// packages serve it.
//
// Where to look:
//
//	run.go                     RunInfo (run.json), the file names, WriteRunInfo, ReadRunInfo
//	filter.go                  Filter and Settings: what run.json records of a run's selection and flags
//	parquet.go                 RunWriter and the decisions/gates Parquet rows
//	casecolumns.go, repeats.go the columns both files end with; the repeats column's JSON
//	read.go                    ReadRun: the Parquet files back into replay.Results
//	shards.go                  ShardSet: shards of one run, checked to belong together
//	resume.go                  Resume: a run finished by run --resume (its failed calls, what was re-sent)
//	hive.go                    the hive layout (run_id=/judge= directories)
//	rundir.go                  claiming a directory: the lock, an earlier run kept until reports are written
//	lock_unix.go, lock_other.go  the directory lock per platform
//	atomic.go                  WriteFileAtomic
//
// The run directory's files and every Parquet column with its logical type
// are written once, in docs/reports.md.
package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apeval/apeval/judge/core"
	"github.com/apeval/apeval/metrics"
)

// File names inside a run directory.
const (
	DecisionsFile = "decisions.parquet"
	GatesFile     = "gates.parquet"
	MetricsFile   = "metrics.parquet"
	RunFile       = "run.json"
	SummaryJSON   = "summary.json"
	SummaryMD     = "summary.md"
	JUnitFile     = "junit.xml"
	HTMLFile      = "report.html"
)

// CompareFile is the comparison's Parquet file: in the run directory when
// a baseline judge is set, and where `apeval compare --out DIR` says.
const CompareFile = "compare.parquet"

// SimulateFile is `apeval simulate`'s Parquet file (docs/simulate.md).
const SimulateFile = "simulate.parquet"

// SimulateJSONFile is the simulation as `apeval simulate` leaves it in the
// run directory for `apeval report` to show in report.html.
const SimulateJSONFile = "simulate.json"

// RunSchema versions run.json.
const RunSchema = "apeval.run/v1"

// RunInfo is run.json: what was replayed, with what, and how it ended. The
// command layer fills it; RunWriter counts the rows it wrote into Results
// and Decisions.
type RunInfo struct {
	Schema      string      `json:"schema"`
	RunID       string      `json:"run_id"`
	Created     time.Time   `json:"created"`
	Version     string      `json:"apeval_version"`
	Datasets    []FileRef   `json:"datasets"`
	Policy      *FileRef    `json:"policy,omitempty"`
	Judges      []JudgeInfo `json:"judges"`
	Baseline    string      `json:"baseline,omitempty"` // --baseline judge identity
	Concurrency int         `json:"concurrency"`
	Timeout     Duration    `json:"timeout"`
	Shard       string      `json:"shard,omitempty"` // "I/N" when sharded
	// Layout is how the decision files are laid out: "" (LayoutFlat) for
	// decisions.parquet and gates.parquet in the run directory, "hive"
	// for one judge=<identity>/ pair per judge (see JudgeDir).
	Layout string `json:"layout,omitempty"`
	// LabelSource is "weak" when the run's labels are the cases' weak
	// labels (run --weak-labels): every figure on labels is then a figure
	// on weak labels and every report says so; "" for the datasets' own
	// labels.
	LabelSource string `json:"label_source,omitempty"`
	// Cases counts the valid cases read; InvalidLines the lines skipped with
	// --skip-invalid.
	Cases        int64 `json:"cases"`
	InvalidLines int64 `json:"invalid_lines"`
	// Results and Decisions are the gates.parquet and decisions.parquet row
	// counts, set by RunWriter.Close.
	Results     int64 `json:"results"`
	Decisions   int64 `json:"decisions"`
	Interrupted bool  `json:"interrupted"`
	// Partial says why the run stopped before the end of its input ("" when
	// it did not): a budget ("budget --max-calls 10 reached"). Its reports
	// cover the finished cases only.
	Partial string `json:"partial,omitempty"`
	// Budget is what --max-calls / --budget-usd allowed and what was spent.
	Budget *core.BudgetReport `json:"budget,omitempty"`
	// Resumed is set on a run made with --resume DIR: the run it finished
	// and what it re-sent.
	Resumed *Resumed `json:"resumed,omitempty"`
	// ReplayMS is the wall time of the replay stage (reading, scope,
	// matchers, judge calls or cache hits, decision files), without start-up
	// and report writing; 0 when not measured (merged runs).
	ReplayMS float64 `json:"replay_ms,omitempty"`
	// Filter is set when --rule, --tag, --limit or --sample narrowed the run.
	Filter *Filter `json:"filter,omitempty"`
	// Settings are the resolved settings (apeval.toml, flags, defaults).
	Settings *Settings `json:"settings,omitempty"`
	// Criteria are the resolved kill criteria the run was made with, and
	// CriteriaFrom where they came from (the policy file, a --criteria
	// file): report, gate, merge and compare use them unless their own
	// --criteria or --policy replaces them (docs/reports.md). Nil in run
	// directories written before apeval recorded them.
	Criteria     *metrics.Thresholds `json:"kill_criteria,omitempty"`
	CriteriaFrom string              `json:"kill_criteria_from,omitempty"`
}

// Resumed says which run a `run --resume DIR` finished: DIR, its run ID,
// the calls that had failed there (timeout or error), and the calls this
// run sent (every other one was answered from the cache); FromPartial when
// DIR had stopped early (a budget, an interrupt), so calls for the cases it
// never reached were sent too.
type Resumed struct {
	From        string `json:"from"`
	RunID       string `json:"run_id"`
	FailedCalls int64  `json:"failed_calls"`
	Resent      int64  `json:"resent_calls"`
	FromPartial bool   `json:"from_partial,omitempty"`
}

// FileRef names an input file and its content hash ("" when unknown, for
// example stdin).
type FileRef struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256,omitempty"`
}

// DatasetDigest names the run's dataset by content: "sha256:" and the
// digest of its one dataset file, or of the list of its datasets' names
// and digests where it has several; "" when a dataset has no digest
// recorded.
func (ri RunInfo) DatasetDigest() string {
	switch {
	case len(ri.Datasets) == 0:
		return ""
	case len(ri.Datasets) == 1:
		if ri.Datasets[0].SHA256 == "" {
			return ""
		}
		return "sha256:" + ri.Datasets[0].SHA256
	}
	h := sha256.New()
	for _, d := range ri.Datasets {
		if d.SHA256 == "" {
			return ""
		}
		fmt.Fprintf(h, "%s\x00%s\n", d.Name, d.SHA256)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// JudgeInfo describes one judge of the run. Identity is the string used in
// every report (core.Identity.String()); Details holds backend settings
// worth keeping (host, base URL, temperature), never secrets.
type JudgeInfo struct {
	Identity      string            `json:"identity"`
	Backend       string            `json:"backend"`
	Model         string            `json:"model,omitempty"`
	Digest        string            `json:"digest,omitempty"`
	PromptVersion string            `json:"prompt_version,omitempty"`
	Details       map[string]string `json:"details,omitempty"`
	// PriceIn and PriceOut are the judge's prices per million prompt and
	// completion tokens (price_in / price_out), nil when not given.
	PriceIn  *float64 `json:"price_in,omitempty"`
	PriceOut *float64 `json:"price_out,omitempty"`
}

// Duration is a time.Duration that reads and writes JSON as "1.5s".
type Duration time.Duration

// MarshalJSON writes the duration in time.Duration.String form.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads "1.5s" (or a bare number of nanoseconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var ns int64
		if err2 := json.Unmarshal(b, &ns); err2 != nil {
			return fmt.Errorf("duration: want a string like \"30s\": %w", err)
		}
		*d = Duration(ns)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}

// WriteRunInfo writes dir/run.json atomically.
func WriteRunInfo(dir string, info RunInfo) error {
	if info.Schema == "" {
		info.Schema = RunSchema
	}
	return WriteFileAtomic(filepath.Join(dir, RunFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(info)
	})
}

// ReadRunInfo reads dir/run.json.
func ReadRunInfo(dir string) (RunInfo, error) {
	var info RunInfo
	b, err := os.ReadFile(filepath.Join(dir, RunFile))
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		// A field of the wrong type is named as the file spells it
		// (run.json: schema: want a string, got number), not as Go's
		// "cannot unmarshal number into Go struct field RunInfo.schema".
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return info, fmt.Errorf("%s: %s: want %s, got %s", filepath.Join(dir, RunFile), te.Field, te.Type, te.Value)
		}
		return info, fmt.Errorf("%s: %w", filepath.Join(dir, RunFile), err)
	}
	if info.Schema != RunSchema {
		return info, fmt.Errorf("%s: schema %q, want %q", filepath.Join(dir, RunFile), info.Schema, RunSchema)
	}
	return info, nil
}
