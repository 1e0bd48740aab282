package importers

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apeval/apeval/datasets"
	"github.com/apeval/apeval/internal/mask"
	"github.com/apeval/apeval/internal/trunc"
)

// format is one importer in the format table: its --from name, how to
// make it, and how `--from auto` recognises one of its records. Adding an
// importer is its own file (the importer and its register call), its section
// of docs/import.md and the list in docs/cli/datasets-import.md.
type format struct {
	name string
	// order places it in --help's list of formats (lowest first).
	order int
	new   func(Options) importer
	// sniff reports whether one record (a JSON object) is this format's;
	// nil when records cannot tell it. Formats are tried in sniffOrder
	// (lowest first): a record that fits several belongs to the first.
	sniff      func(r sniffed) bool
	sniffOrder int
}

// formats is the table. Each importer's own file adds its line with
// register from an init func, as image.RegisterFormat does, so adding an
// importer touches its own file and its docs only.
var formats []format

// register adds an importer to the table (from an init func).
func register(f format) { formats = append(formats, f) }

// table is the table in the order --help lists the importers (format.order),
// built on first use, after every init func has registered.
var table = sync.OnceValue(func() []format {
	fs := slices.Clone(formats)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].order < fs[j].order })
	return fs
})

// Formats lists the importers by their --from name, in help order.
func Formats() []string {
	fs := table()
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// Auto is the --from value that detects the format from the first records.
const Auto = "auto"

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
	// openCodeBusyMS is how long an OpenCode database locked by another
	// process is waited for (0: 5 s; tests shorten it).
	openCodeBusyMS int
	// Categories classifies tool names (nil: the built-in map).
	Categories datasets.CategoryMap
	// Stdin is read for the source "-".
	Stdin io.Reader
}

// Summary reports an import, per source file, in the order read.
type Summary struct {
	Format string `json:"format"`
	// Detected says why the format was chosen, when it was detected (--from auto).
	Detected string `json:"detected,omitempty"`
	// Roots are the project roots given, when the sources were read from
	// the agents' logs found under them (Stores).
	Roots    []string         `json:"roots,omitempty"`
	Stores   []Store          `json:"stores,omitempty"`
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
	Warnings  []string       `json:"warnings,omitempty"`
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

// errorIn is errorf for a record in another file than the source's own
// (an OpenCode message or part file of the session being read).
func (s *SourceSummary) errorIn(file string, line int, format string, args ...any) {
	src := s.Source
	s.Source = file
	s.errorf(line, format, args...)
	s.Source = src
}

// warnf notes something the user should look at that is not a bad record
// (printed with the summary).
func (s *SourceSummary) warnf(format string, args ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
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

// grouper is an importer that reads some files together (a Claude Code
// session and its sub-agents' files, merged by time).
type grouper interface {
	// groups splits the files into the groups read together, in order.
	groups(files []string) [][]string
	// group imports one group; sums[i] is files[i]'s summary.
	group(files []string, sums []*SourceSummary, out *output, opt Options) error
}

// Import reads sources in format and emits their cases in order. format
// Auto (or "") detects the format from the first records (Summary.Detected
// says why). errorSink, when not nil, sees each bad record's message as it
// is found (for stderr). The error is a fatal one: an unknown format, a
// source that does not exist, a failing emit.
func Import(format string, sources []string, opt Options, emit Emit, errorSink func(string)) (*Summary, error) {
	out := &output{opt: opt, emit: emit, seed: maphash.MakeSeed(), ids: map[uint64]struct{}{}, sessions: map[uint64]struct{}{}, seqs: map[string]int64{}, withID: map[uint64]int{}, withoutID: map[uint64]int{}}
	var stdin *bufio.Reader
	if (format == Auto || format == "") && slices.Contains(sources, "-") && opt.Stdin != nil {
		stdin = bufio.NewReaderSize(opt.Stdin, 1<<20)
		opt.Stdin = stdin
		out.opt.Stdin = stdin
	}
	stores, roots, ok, err := projectStores(format, sources, stdin)
	if err != nil {
		return nil, err
	}
	if ok {
		return importStores(stores, roots, opt, out, errorSink)
	}
	detected := ""
	if format == Auto || format == "" {
		f, why, err := Detect(sources, stdin)
		if err != nil {
			return nil, err
		}
		format, detected = f, why
	}
	sum := &Summary{Format: format, Detected: detected, Skipped: map[string]int{}, Sources: []*SourceSummary{}}
	err = importFormat(format, sources, opt, out, sum, errorSink, false)
	sum.Sessions = len(out.sessions)
	if err != nil && len(sum.Sources) == 0 && sum.Records == 0 {
		if _, ok := err.(emitError); !ok {
			return nil, err
		}
	}
	return sum, err
}

// importStores imports the stores found under project roots (and the
// sources named beside them), each with its own format, into one summary
// (Summary.Stores lists them). A store that cannot be read (an unreadable
// file, a damaged database) is an error of its own source, named with its
// reason, and the other stores are still read: nothing that can be read
// is lost for one that cannot.
func importStores(stores []Store, roots []string, opt Options, out *output, errorSink func(string)) (*Summary, error) {
	var formats []string
	byFormat := map[string][]string{}
	for _, s := range stores {
		if s.Format == Unreadable {
			continue
		}
		if _, ok := byFormat[s.Format]; !ok {
			formats = append(formats, s.Format)
		}
		byFormat[s.Format] = append(byFormat[s.Format], s.files...)
	}
	sum := &Summary{Format: strings.Join(formats, "+"), Stores: stores, Roots: roots, Skipped: map[string]int{}, Sources: []*SourceSummary{}}
	if sum.Format == "" {
		sum.Format = Unreadable
	}
	for _, f := range formats {
		if err := importFormat(f, byFormat[f], opt, out, sum, errorSink, true); err != nil {
			sum.Sessions = len(out.sessions)
			return sum, err
		}
	}
	for _, s := range stores {
		if s.Format != Unreadable {
			continue
		}
		ss := &SourceSummary{Source: s.files[0], Skipped: map[string]int{}, Errors: []string{}, sessions: map[uint64]struct{}{}, errorSink: errorSink}
		ss.errorf(0, "%s, so whether it is an agent's log could not be told (nothing read from it)", s.What)
		sum.Sources = append(sum.Sources, ss)
		sum.Errors += ss.ErrCount
	}
	sum.Sessions = len(out.sessions)
	return sum, nil
}

// importFormat reads sources in one format, adding their sources and
// counts to sum. With keepGoing (a project root's stores) a file that
// cannot be read at all is an error of its own source and the rest are
// read; otherwise it stops the import.
func importFormat(format string, sources []string, opt Options, out *output, sum *Summary, errorSink func(string), keepGoing bool) error {
	imp, err := newImporter(format, opt)
	if err != nil {
		return err
	}
	files, err := expand(format, sources, imp)
	if err != nil {
		return err
	}
	newSum := func(f string) *SourceSummary {
		ss := &SourceSummary{Source: f, Skipped: map[string]int{}, Errors: []string{}, sessions: map[uint64]struct{}{}, errorSink: errorSink}
		if f == "-" {
			ss.Source = datasets.StdinName
		}
		return ss
	}
	groups := [][]string{}
	g, grouped := imp.(grouper)
	if grouped {
		groups = g.groups(files)
	} else {
		for _, f := range files {
			groups = append(groups, []string{f})
		}
	}
	for _, group := range groups {
		sums := make([]*SourceSummary, len(group))
		for i, f := range group {
			sums[i] = newSum(f)
		}
		sum.Sources = append(sum.Sources, sums...)
		var head []byte
		if grouped {
			err = g.group(group, sums, out, opt)
		} else {
			err = importFile(imp, group[0], sums[0], out, opt, &head)
		}
		if err != nil {
			if _, ok := err.(emitError); ok || !keepGoing {
				return err
			}
			sums[0].errorf(0, "%s", storeFailure(group[0], err, sums[0].Cases))
			err = nil
		}
		for i, ss := range sums {
			wrongFormat(format, group[i], ss, head)
			sum.Records += ss.Records
			sum.Cases += ss.Cases
			sum.Errors += ss.ErrCount
			for k, v := range ss.Skipped {
				sum.Skipped[k] += v
			}
		}
	}
	return nil
}

// storeFailure says why a store could not be read, without its path (the
// error is its source's), and what of it was kept.
func storeFailure(path string, err error, cases int) string {
	why := strings.TrimPrefix(err.Error(), path+": ")
	var bad badDBError
	var pe *fs.PathError
	switch {
	case errors.As(err, &bad):
		why = bad.what
	case errors.As(err, &pe):
		why = pe.Op + ": " + pe.Err.Error()
	}
	kept := "nothing read from it"
	if cases > 0 {
		kept = fmt.Sprintf("the %d cases read before that are kept", cases)
	}
	return "cannot be read: " + why + " (" + kept + "; the other stores are read)"
}

// importFile imports one file; a stdin source's first bytes are kept in
// head (the stream cannot be read again to tell its format).
func importFile(imp importer, f string, ss *SourceSummary, out *output, opt Options, head *[]byte) error {
	out.sum = ss
	br, closer, err := datasets.OpenInput(f, opt.Stdin)
	if err != nil {
		return err
	}
	if f == "-" {
		h, _ := br.Peek(sniffBytes)
		*head = slices.Clone(h)
	}
	err = imp.file(br, ss, out)
	if cerr := closer.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if _, ok := err.(emitError); ok {
			return err
		}
		if _, ok := err.(badDBError); ok {
			return err // a database that cannot be read at all: nothing is written
		}
		ss.errorf(0, "%v", err) // a truncated stream: what was read so far stays
	}
	return nil
}

// wrongFormat makes a source that gave no case although it has records an
// error when its records look like another format: a wrong --from must
// not pass as an empty log.
func wrongFormat(format, f string, ss *SourceSummary, head []byte) {
	if ss.Cases > 0 || ss.Records == 0 {
		return
	}
	var guess string
	if f == "-" {
		guess = sniff(head)
	} else {
		guess = sniffFile(f)
	}
	if guess != "" && guess != format {
		ss.errorf(0, "no case from %d records: they look like %s, not %s (use --from %s, or --from auto)", ss.Records, guess, format, guess)
	}
}

func newImporter(name string, opt Options) (importer, error) {
	for _, f := range table() {
		if f.name == name {
			return f.new(opt), nil
		}
	}
	return nil, unknownFormat(name)
}

// CheckFormat reports whether name is a --from value: Auto (or "") or one
// of Formats; the error lists them.
func CheckFormat(name string) error {
	if name == Auto || name == "" || slices.Contains(Formats(), name) {
		return nil
	}
	return unknownFormat(name)
}

func unknownFormat(name string) error {
	hint := ""
	if f, ok := formatByAgent[strings.ToLower(strings.TrimSpace(name))]; ok {
		hint = "; " + f
	}
	return fmt.Errorf("unknown format %q (want one of %s%s)", name, strings.Join(Formats(), ", "), hint)
}

// formatByAgent answers --from given an agent's name instead of a format.
var formatByAgent = map[string]string{
	"crush":       "Charm Crush's crush.db is read by --from opencode (it kept the Go OpenCode's tables)",
	"claude":      "Claude Code's logs are claude-code-transcript (~/.claude/projects), claude-code-hooks (hook logs), claude-code-stream-json or claude-code-otel",
	"claude-code": "Claude Code's logs are claude-code-transcript (~/.claude/projects), claude-code-hooks (hook logs), claude-code-stream-json or claude-code-otel",
	"codex":       "Codex's logs are codex-rollout (~/.codex/sessions) or codex-exec-json (codex exec --json)",
	"gemini":      "Gemini CLI's chats are gemini-cli (~/.gemini/tmp)",
}

func cmpInt(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fileNames says which files a directory is searched for, per format.
func fileNames(format string) string {
	switch format {
	case "codex-rollout":
		return "rollout-*.jsonl"
	case "gemini-cli":
		return "session-*.json(l) or files under a chats/ directory"
	case "opencode":
		return "storage/session/*/*.json, opencode.db or crush.db"
	case "claude-code-transcript", "trajectory-events":
		return "*.jsonl"
	case "r-judge", "assebench", "redcode":
		return "*.json"
	case "claude-code-stream-json":
		return "*.jsonl, *.json and *.ndjson"
	}
	return "*.jsonl and *.json"
}

// expand turns the sources into files: a file as it is, a directory walked
// in lexical order for the format's files, "-" as stdin.
func expand(format string, sources []string, imp importer) ([]string, error) {
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
			if c, ok := imp.(companions); ok {
				files = append(files, c.companions(src)...)
			}
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
			return nil, fmt.Errorf("%s: no %s files found in it (a directory is searched for the names that format's files have, %s); name a file to read it whatever its name", src, format, fileNames(format))
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	seen := map[string]bool{}
	out := files[:0]
	for _, f := range files {
		if f == "-" || !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// companions is an importer whose files come with others that belong to
// them (a Claude Code session's sub-agent files), read too when the file
// alone is given.
type companions interface {
	companions(file string) []string
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
	// Claude Code calls not yet paired, by session, tool and input: with
	// the agent's tool_use_id (cc-…) and without it (cch-…: hook payloads
	// of Claude Code before tool_use_id, 1.0.x). See pairCall.
	withID, withoutID map[uint64]int
	// callSession: a call id an importer scopes by session
	// (sessionScopedID) → the session that used it first.
	callSession map[uint64]string
}

// sessionScopedID is id for a call of session, unless another session used
// that id first: then id@session. Some providers number tool calls per
// conversation ("functions.bash:7", Moonshot's Kimi through OpenCode), so
// two sessions' calls can share an id; the first keeps the id it always
// had, a later session's is told apart instead of being dropped as a
// duplicate. The same call read twice (same session) keeps one id.
func (o *output) sessionScopedID(id, session string) string {
	if o.callSession == nil {
		o.callSession = map[uint64]string{}
	}
	h := maphash.String(o.seed, id)
	first, ok := o.callSession[h]
	switch {
	case !ok:
		o.callSession[h] = session
	case first != session:
		o.sum.note(noteSessionScopedID)
		return id + "@" + session
	}
	return id
}

const noteSessionScopedID = "call id used by an earlier session: the case id gets @session"

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
	if o.pairCall(c) {
		o.sum.skip(skipPairedCall)
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

// skipPairedCall is the skip reason of a Claude Code call written already
// from another log under its other id.
const skipPairedCall = "duplicate call (a hook payload without tool_use_id and a transcript's call: same session, tool and input)"

// pairCall reports whether c is a Claude Code call another log gave
// already under its other id. Claude Code's hook payloads carried no
// tool_use_id before 1.0.x's later releases, so a hook log's call (cch-…)
// and the same call in the session's transcript (cc-<tool_use_id>) had two
// ids, and a project root holding both (logs/pre_tool_use.json beside
// logs/chat.json, as the hooks of many public repositories keep them)
// wrote it twice. Calls are paired by session, tool name and input, one
// for one, whichever log is read first.
func (o *output) pairCall(c *datasets.Case) bool {
	var mine, other map[uint64]int
	switch {
	case c.SessionID == "" || o.withID == nil:
		return false
	case strings.HasPrefix(c.ID, "cch-"):
		mine, other = o.withoutID, o.withID
	case strings.HasPrefix(c.ID, "cc-"):
		mine, other = o.withID, o.withoutID
	default:
		return false
	}
	args, err := json.Marshal(c.Tool.Arguments)
	if err != nil {
		return false
	}
	var h maphash.Hash
	h.SetSeed(o.seed)
	for _, s := range []string{c.SessionID, c.Tool.Name, string(args)} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	key := h.Sum64()
	if other[key] > 0 {
		other[key]--
		return true
	}
	mine[key]++
	return false
}

// maskCase masks every text of a case that came from the agent's log. The
// message contents are masked where they are collected (context), so the
// same message is not masked again for every case that shows it.
func maskCase(c *datasets.Case) {
	if c.Tool.Arguments != nil {
		c.Tool.Arguments, _ = mask.Value(c.Tool.Arguments).(map[string]any)
	}
	if c.Provenance != nil {
		for _, k := range []string{"tool_result_error", "risk_description", "raw_action", "hook_updated_by"} {
			if s, ok := c.Provenance[k].(string); ok {
				c.Provenance[k] = mask.String(s)
			}
		}
		if in, ok := c.Provenance["hook_updated_input"].(map[string]any); ok {
			c.Provenance["hook_updated_input"] = mask.Value(in)
		}
	}
}

// text masks a message text unless masking is off, and caps its length.
func (o *output) text(s string) string {
	s = trunc.Runes(s, maxMessageRunes)
	if o.opt.NoMask {
		return s
	}
	return mask.Turn(s)
}

// maxMessageRunes caps each context message: the judge sees at most a few
// thousand characters of it anyway, and a pasted log must not bloat every
// case after it.
const maxMessageRunes = 4000

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
	if strings.TrimSpace(text) == "" {
		return // a blank turn ("\n\n" text blocks) says nothing and would take a slot
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
