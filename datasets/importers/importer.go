package importers

import (
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
)

// Formats lists the importers by their --from name.
var Formats = []string{"claude-code-hooks", "claude-code-transcript", "codex-rollout", "r-judge", "trajectory-events"}

// DefaultRuleID is the rule R-Judge labels are written under.
const DefaultRuleID = "unsafe-action"

// maxErrors caps the error messages kept per source in the summary; the
// count goes on.
const maxErrors = 100

// Options tune an import. The zero value masks secrets and labels R-Judge
// records under DefaultRuleID.
type Options struct {
	// NoMask keeps secrets in arguments and messages as they were.
	NoMask bool
	// RuleID is the rule R-Judge labels are written under.
	RuleID string
	// Workspace is the workspace of trajectory events that name none.
	Workspace string
	// Categories classifies tool names (nil: the built-in map).
	Categories datasets.CategoryMap
	// Stdin is read for the source "-".
	Stdin io.Reader
}

// Summary reports an import, per source file, in the order read.
type Summary struct {
	Format   string           `json:"format"`
	Records  int              `json:"records"`
	Cases    int              `json:"cases"`
	Sessions int              `json:"sessions"`
	Skipped  map[string]int   `json:"skipped"`
	Errors   int              `json:"errors"`
	Sources  []*SourceSummary `json:"sources"`
}

// SourceSummary counts one source file: records read (lines, or records of
// a JSON array), cases written, distinct sessions, records skipped by
// reason, and records that could not be read, each as file:line: message.
type SourceSummary struct {
	Source    string         `json:"source"`
	Records   int            `json:"records"`
	Cases     int            `json:"cases"`
	Sessions  int            `json:"sessions"`
	Skipped   map[string]int `json:"skipped"`
	Notes     map[string]int `json:"notes,omitempty"`
	ErrCount  int            `json:"error_count"`
	Errors    []string       `json:"errors"`
	sessions  map[uint64]struct{}
	errorSink func(string)
}

func (s *SourceSummary) skip(reason string) { s.Skipped[reason]++ }

func (s *SourceSummary) note(what string) {
	if s.Notes == nil {
		s.Notes = map[string]int{}
	}
	s.Notes[what]++
}

func (s *SourceSummary) errorf(line int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		msg = fmt.Sprintf("%s:%d: %s", s.Source, line, msg)
	} else {
		msg = s.Source + ": " + msg
	}
	s.ErrCount++
	if len(s.Errors) < maxErrors {
		s.Errors = append(s.Errors, msg)
	}
	if s.errorSink != nil {
		s.errorSink(msg)
	}
}

// Emit receives each imported case; an error stops the import.
type Emit func(*datasets.Case) error

// importer reads one source file.
type importer interface {
	// match reports whether a file found while walking a directory is one
	// of this format's files.
	match(path string) bool
	// file imports one file (r is decompressed already).
	file(r io.Reader, sum *SourceSummary, out *output) error
	// stream reports whether the format can be read from stdin.
	stream() bool
}

// Import reads sources in format and emits their cases in order. errorSink,
// when not nil, sees each bad record's message as it is found (for stderr).
// The error is a fatal one: an unknown format, a source that does not
// exist, a failing emit.
func Import(format string, sources []string, opt Options, emit Emit, errorSink func(string)) (*Summary, error) {
	imp, err := newImporter(format, opt)
	if err != nil {
		return nil, err
	}
	files, err := expand(sources, imp)
	if err != nil {
		return nil, err
	}
	out := &output{opt: opt, emit: emit, seed: maphash.MakeSeed(), ids: map[uint64]struct{}{}, sessions: map[uint64]struct{}{}, seqs: map[string]int64{}}
	sum := &Summary{Format: format, Skipped: map[string]int{}, Sources: []*SourceSummary{}}
	for _, f := range files {
		ss := &SourceSummary{Source: f, Skipped: map[string]int{}, Errors: []string{}, sessions: map[uint64]struct{}{}, errorSink: errorSink}
		if f == "-" {
			ss.Source = datasets.StdinName
		}
		sum.Sources = append(sum.Sources, ss)
		out.sum = ss
		br, closer, err := datasets.OpenInput(f, opt.Stdin)
		if err != nil {
			return sum, err
		}
		err = imp.file(br, ss, out)
		if cerr := closer.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			if _, ok := err.(emitError); ok {
				return sum, err
			}
			ss.errorf(0, "%v", err) // a truncated stream: what was read so far stays
		}
		sum.Records += ss.Records
		sum.Cases += ss.Cases
		sum.Errors += ss.ErrCount
		for k, v := range ss.Skipped {
			sum.Skipped[k] += v
		}
	}
	sum.Sessions = len(out.sessions)
	return sum, nil
}

func newImporter(format string, opt Options) (importer, error) {
	switch format {
	case "claude-code-hooks":
		return &claudeHooks{}, nil
	case "claude-code-transcript":
		return &claudeTranscript{}, nil
	case "codex-rollout":
		return &codexRollout{}, nil
	case "r-judge":
		return &rJudge{ruleID: cmpOr(opt.RuleID, DefaultRuleID)}, nil
	case "trajectory-events":
		return &trajectory{workspace: opt.Workspace}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// expand turns the sources into files: a file as it is, a directory walked
// in lexical order for the format's files, "-" as stdin.
func expand(sources []string, imp importer) ([]string, error) {
	var files []string
	for _, src := range sources {
		if src == "-" {
			if !imp.stream() {
				return nil, fmt.Errorf("this format cannot be read from stdin; give a file or directory")
			}
			files = append(files, src)
			continue
		}
		st, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, src)
			continue
		}
		var found []string
		err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && imp.match(p) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no files of this format found", src)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

// stripCompression drops a .gz or .zst suffix, for matching names.
func stripCompression(p string) string {
	for _, s := range []string{".gz", ".zst"} {
		if strings.HasSuffix(p, s) {
			return strings.TrimSuffix(p, s)
		}
	}
	return p
}

// output finishes cases (seq, category, masking, id uniqueness) and hands
// them to emit.
type output struct {
	opt      Options
	emit     Emit
	sum      *SourceSummary
	seed     maphash.Seed
	ids      map[uint64]struct{}
	sessions map[uint64]struct{}
	seqs     map[string]int64 // session → last seq given
}

type emitError struct{ error }

// add emits c: it numbers the case within its session, classifies the
// tool, masks texts and checks the id is new (a repeated id — the same hook
// payload logged twice — is skipped and counted).
func (o *output) add(c *datasets.Case) error {
	if c.Tool.Name == "" { // importers check this; a case without a tool is never written
		line, _ := c.Provenance["line"].(int)
		o.sum.errorf(line, "tool name: required")
		return nil
	}
	h := maphash.String(o.seed, c.ID)
	if _, dup := o.ids[h]; dup {
		o.sum.skip("duplicate id")
		return nil
	}
	o.ids[h] = struct{}{}
	if c.SessionID == "" {
		c.SessionID = c.ID
	}
	o.seqs[c.SessionID]++
	c.Seq = o.seqs[c.SessionID]
	if c.HookPoint == "" {
		c.HookPoint = datasets.DefaultHookPoint
	}
	if c.Tool.Category == "" {
		c.Tool.Category = o.opt.Categories.Of(c.Tool.Name)
	}
	if !o.opt.NoMask {
		maskCase(c)
	}
	sh := maphash.String(o.seed, c.SessionID)
	o.sessions[sh] = struct{}{}
	if _, ok := o.sum.sessions[sh]; !ok {
		o.sum.sessions[sh] = struct{}{}
		o.sum.Sessions++
	}
	o.sum.Cases++
	if err := o.emit(c); err != nil {
		return emitError{err}
	}
	return nil
}

// maskCase masks every text of a case that came from the agent's log. The
// message contents are masked where they are collected (context), so the
// same message is not masked again for every case that shows it.
func maskCase(c *datasets.Case) {
	if c.Tool.Arguments != nil {
		c.Tool.Arguments, _ = mask.Value(c.Tool.Arguments).(map[string]any)
	}
	if c.Provenance != nil {
		for _, k := range []string{"tool_result_error", "risk_description", "raw_action"} {
			if s, ok := c.Provenance[k].(string); ok {
				c.Provenance[k] = mask.String(s)
			}
		}
	}
}

// text masks a message text unless masking is off, and caps its length.
func (o *output) text(s string) string {
	s = capRunes(s, maxMessageRunes)
	if o.opt.NoMask {
		return s
	}
	return mask.String(s)
}

// maxMessageRunes caps each context message: the judge sees at most a few
// thousand characters of it anyway, and a pasted log must not bloat every
// case after it.
const maxMessageRunes = 4000

func capRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// convo keeps the context of one conversation: the latest real user
// message and the last few turns.
type convo struct {
	latest string
	recent []datasets.Message
}

// maxRecent is how many turns a case's context keeps (a judge sees at most 4, see docs/replay.md).
const maxRecent = 4

func (c *convo) user(text string) {
	c.latest = text
	c.turn("user", text)
}

func (c *convo) turn(role, text string) {
	if text == "" {
		return
	}
	if len(c.recent) == maxRecent {
		copy(c.recent, c.recent[1:])
		c.recent = c.recent[:maxRecent-1]
	}
	c.recent = append(c.recent, datasets.Message{Role: role, Content: text})
}

// context returns a copy of the context for one case.
func (c *convo) context() datasets.Context {
	return datasets.Context{LatestUserMessage: c.latest, RecentMessages: slices.Clone(c.recent)}
}

// provenance starts a case's provenance object.
func provenance(format, source string, line int) map[string]any {
	p := map[string]any{"format": format, "source": source}
	if line > 0 {
		p["line"] = line
	}
	return p
}
