// Package automode turns the rule sets of an agent's own LLM gate into an
// apeval policy, so the gate's rules can be evaluated on a team's sessions
// like any other (`apeval policy import --from claude-auto-mode`, and
// --from codex-auto-review for Codex's reviewer: codex.go;
// docs/vendor-judges.md).
//
// Claude Code's auto mode gates tool calls with a classifier that reads
// natural-language rule lists from the autoMode block of its settings:
// environment (what the organisation trusts), allow (exceptions to the
// soft_deny rules), soft_deny (blocks unless an allow rule or the user's
// explicit intent clears it) and hard_deny (blocks whatever the user
// asked). A list holding the entry "$defaults" splices the built-in list in
// at that place; a list set without it replaces the built-in list; a list
// no file sets keeps the built-in one. The lists of every file Claude Code
// reads autoMode from (managed settings, --settings, local project
// settings, user settings; not the shared project settings) are added up,
// highest precedence first.
//
// Calls auto mode decides without its classifier — read-only tools, file
// edits inside the working directory, read-only shell commands (unless
// classifyAllShell), calls an explicit permissions.allow rule grants —
// become a deterministic precondition of every imported rule
// ([[rule.when.unless]]), so they are out of the judge's reach in the replay
// as they are in the agent.
//
// Where to look:
//
//	| what                                   | where          |
//	|----------------------------------------|----------------|
//	| reading settings files, merging them    | automode.go    |
//	| the built-in lists ($defaults)          | defaults/      |
//	| writing the policy                      | render.go      |
//	| JSON with line numbers                  | jsonlines.go   |
//	| Codex auto-review: execpolicy rules,    | codex.go       |
//	| reviewer policy (ImportCodex)           |                |
//	| which calls reach the classifier        | coverage.go    |
//	| --from: which importer (ImportFrom)      | from.go        |
//
// Not a stable Go API: apeval is a command, and this package serves it;
// its exported names change with the command, without a compatibility
// promise between versions.
package automode

import (
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apeval/apeval/internal/trunc"
)

// Keys are the rule lists of the autoMode block, in the order the policy
// lists them.
var Keys = []string{"hard_deny", "soft_deny", "allow", "environment"}

// Setting kinds, highest precedence first.
const (
	KindManaged = "managed"
	KindFlag    = "flag"
	KindLocal   = "local"
	KindProject = "project"
	KindUser    = "user"
)

// Kinds lists the settings kinds, highest precedence first.
var Kinds = []string{KindManaged, KindFlag, KindLocal, KindProject, KindUser}

func rank(kind string) int {
	for i, k := range Kinds {
		if k == kind {
			return i
		}
	}
	return len(Kinds)
}

// Entry is one rule of one list, where it came from.
type Entry struct {
	Key  string // hard_deny, soft_deny, allow or environment
	Text string
	File string
	Line int
	Kind string // the settings kind, or "defaults"
}

// Where is "FILE:LINE".
func (e Entry) Where() string { return where(e.File, e.Line) }

// Source is one settings file as read.
type Source struct {
	Kind string
	Path string
	// lists holds the autoMode lists the file sets (nil: not set).
	lists map[string][]Entry
	// setAt is the line of each list's key.
	setAt map[string]int
	// ClassifyAllShell is the file's autoMode.classifyAllShell (nil: unset).
	ClassifyAllShell *bool
	// DefaultMode is permissions.defaultMode ("" unset).
	DefaultMode string
	// AllowRules are permissions.allow entries with their lines.
	AllowRules []Entry
	// HasPermissions: the file has permissions.allow, ask or deny rules.
	HasPermissions bool
}

// Defaults are the built-in lists one Claude Code version carries.
type Defaults struct {
	Agent, Version, Source string
	File                   string
	Lists                  map[string][]Entry
}

//go:embed defaults/*.json
var defaultsFS embed.FS

// BuiltinDefaults is the file under defaults/ apeval uses when --defaults
// is not given.
const BuiltinDefaults = "defaults/claude-code-2.1.json"

// LoadDefaults reads a defaults file: apeval's versioned copy (path "")
// or the output of `claude auto-mode defaults` (the four lists; agent,
// version and source are optional there).
func LoadDefaults(path string) (*Defaults, error) {
	var data []byte
	var err error
	name := path
	if path == "" {
		name = BuiltinDefaults
		data, err = defaultsFS.ReadFile(BuiltinDefaults)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	root, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", name, err)
	}
	d := &Defaults{File: name, Lists: map[string][]Entry{}}
	for _, m := range root.obj {
		switch m.key {
		case "agent", "version", "source":
			if m.val.kind != kString {
				return nil, fmt.Errorf("%s: %s: want a string, found %s", where(name, m.line), m.key, m.val.typeName())
			}
			s := m.val.val.(string)
			switch m.key {
			case "agent":
				d.Agent = s
			case "version":
				d.Version = s
			default:
				d.Source = s
			}
		case "environment", "allow", "soft_deny", "hard_deny":
			list, err := stringList(name, m, "")
			if err != nil {
				return nil, err
			}
			for i := range list {
				list[i].Kind = "defaults"
				if list[i].Text == DefaultsEntry {
					return nil, fmt.Errorf("%s: %s: the defaults cannot hold %q", list[i].Where(), m.key, DefaultsEntry)
				}
			}
			d.Lists[m.key] = list
		}
	}
	if path != "" && d.Source == "" {
		d.Source = "the file " + path + " (`claude auto-mode defaults` output)"
	}
	if d.Version == "" {
		d.Version = "unknown"
	}
	return d, nil
}

// DefaultsEntry is the entry that splices the built-in list in.
const DefaultsEntry = "$defaults"

// autoModeKeys are the keys of the autoMode block apeval knows.
var autoModeKeys = map[string]bool{"environment": true, "allow": true, "soft_deny": true, "hard_deny": true, "classifyAllShell": true}

// ParseSpec splits "KIND:PATH"; a bare PATH's kind is told from its name:
// managed-settings.json (or a file of managed-settings.d/) is managed,
// settings.local.json local, .claude/settings.json in the home directory
// user, another .claude/settings.json project, anything else flag (a file
// given to --settings).
func ParseSpec(spec string) (kind, path string) {
	if k, p, ok := strings.Cut(spec, ":"); ok && rank(k) < len(Kinds) && p != "" {
		return k, p
	}
	base := filepath.Base(spec)
	dir := filepath.Base(filepath.Dir(spec))
	switch {
	case strings.HasPrefix(base, "managed-settings") || dir == "managed-settings.d":
		return KindManaged, spec
	case base == "settings.local.json":
		return KindLocal, spec
	case base == "settings.json" && dir == ".claude":
		home, _ := os.UserHomeDir()
		abs, _ := filepath.Abs(spec)
		if home != "" && filepath.Dir(filepath.Dir(abs)) == filepath.Clean(home) {
			return KindUser, spec
		}
		return KindProject, spec
	}
	return KindFlag, spec
}

// Read reads one settings file. A file that is not JSON, an autoMode that
// is not an object, a list that is not an array of strings: an error naming
// FILE:LINE and the key. warn receives what is kept but worth a look
// (unknown autoMode keys).
func Read(kind, path string, warn func(string)) (*Source, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	root, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	s := &Source{Kind: kind, Path: path, lists: map[string][]Entry{}, setAt: map[string]int{}}
	if perm := root.get("permissions"); perm != nil {
		if perm.val.kind != kObject {
			return nil, fmt.Errorf("%s: permissions: want an object, found %s", where(path, perm.line), perm.val.typeName())
		}
		for _, m := range perm.val.obj {
			switch m.key {
			case "allow", "ask", "deny":
				list, err := stringList(path, m, "permissions.")
				if err != nil {
					return nil, err
				}
				if len(list) > 0 {
					s.HasPermissions = true
				}
				if m.key == "allow" {
					s.AllowRules = list
				}
			case "defaultMode":
				if m.val.kind != kString {
					return nil, fmt.Errorf("%s: permissions.defaultMode: want a string, found %s", where(path, m.line), m.val.typeName())
				}
				s.DefaultMode = m.val.val.(string)
			}
		}
	}
	am := root.get("autoMode")
	if am == nil {
		return s, nil
	}
	if am.val.kind != kObject {
		return nil, fmt.Errorf("%s: autoMode: want an object, found %s", where(path, am.line), am.val.typeName())
	}
	for _, m := range am.val.obj {
		switch {
		case m.key == "classifyAllShell":
			if m.val.kind != kBool {
				return nil, fmt.Errorf("%s: autoMode.classifyAllShell: want true or false, found %s", where(path, m.line), m.val.typeName())
			}
			b := m.val.val.(bool)
			s.ClassifyAllShell = &b
		case autoModeKeys[m.key]:
			list, err := stringList(path, m, "autoMode.")
			if err != nil {
				return nil, err
			}
			for i := range list {
				list[i].Kind = kind
			}
			s.lists[m.key] = list
			s.setAt[m.key] = m.line
		default:
			warn(fmt.Sprintf("%s: autoMode.%s: unknown key, ignored (known: classifyAllShell, %s)", where(path, m.line), m.key, strings.Join(Keys, ", ")))
		}
	}
	return s, nil
}

// stringList reads an array of strings; anything else is an error naming
// the element.
func stringList(file string, m member, prefix string) ([]Entry, error) {
	if m.val.kind != kArray {
		return nil, fmt.Errorf("%s: %s%s: want an array of strings, found %s", where(file, m.line), prefix, m.key, m.val.typeName())
	}
	out := make([]Entry, 0, len(m.val.arr))
	for i, v := range m.val.arr {
		if v.kind != kString {
			return nil, fmt.Errorf("%s: %s%s[%d]: want a string, found %s", where(file, v.line), prefix, m.key, i, v.typeName())
		}
		text := strings.TrimSpace(v.val.(string))
		if text == "" {
			return nil, fmt.Errorf("%s: %s%s[%d]: blank rule", where(file, v.line), prefix, m.key, i)
		}
		out = append(out, Entry{Key: m.key, Text: text, File: file, Line: v.line})
	}
	return out, nil
}

// Set is the merged rule set auto mode runs with.
type Set struct {
	Lists    map[string][]Entry
	Defaults *Defaults
	// DefaultsUsed says, per key, how the built-in list came in: "spliced"
	// ($defaults in some file), "kept" (no file sets the list) or
	// "replaced" (a file sets the list without $defaults).
	DefaultsUsed map[string]string
	// ClassifyAllShell is the setting of the highest-precedence file that
	// gives it (false when none does).
	ClassifyAllShell bool
	// Sources are the files read, highest precedence first.
	Sources []*Source
	// AllowRules are the permissions.allow rules of every source.
	AllowRules []Entry
	// Warnings: entries ignored (with why) and other things to look at.
	Warnings []string
	// Skipped counts ignored entries by reason.
	Skipped map[string]int
	which   string // RulesBoth ("" too), RulesEntries or RulesClassifier
}

// Merge adds up the sources' lists in Claude Code's precedence order
// (managed, flag, local, user; project settings' autoMode is ignored, as
// Claude Code ignores it), expands $defaults, and drops repeated entries.
func Merge(sources []*Source, defaults *Defaults) *Set {
	srcs := append([]*Source(nil), sources...)
	sort.SliceStable(srcs, func(i, j int) bool { return rank(srcs[i].Kind) < rank(srcs[j].Kind) })
	set := &Set{Lists: map[string][]Entry{}, Defaults: defaults, DefaultsUsed: map[string]string{}, Sources: srcs, Skipped: map[string]int{}}
	shellSet := false
	for _, s := range srcs {
		set.AllowRules = append(set.AllowRules, s.AllowRules...)
		if s.Kind == KindProject {
			for _, k := range Keys {
				if n := len(s.lists[k]); n > 0 {
					set.Warnings = append(set.Warnings, fmt.Sprintf("%s: autoMode.%s: %d entries ignored: Claude Code does not read autoMode from shared project settings (.claude/settings.json); move them to .claude/settings.local.json, user or managed settings", where(s.Path, s.setAt[k]), k, n))
					set.Skipped["autoMode in shared project settings"] += n
				}
			}
			if s.ClassifyAllShell != nil {
				set.Warnings = append(set.Warnings, s.Path+": autoMode.classifyAllShell ignored: not read from shared project settings")
			}
			continue
		}
		if s.ClassifyAllShell != nil && !shellSet {
			set.ClassifyAllShell, shellSet = *s.ClassifyAllShell, true
		}
	}
	for _, k := range Keys {
		var merged []Entry
		seen := map[string]string{}
		set.DefaultsUsed[k] = "kept"
		spliced := false
		setAnywhere := false
		add := func(e Entry) {
			if first, dup := seen[e.Text]; dup {
				set.Skipped["repeated entry"]++
				set.Warnings = append(set.Warnings, fmt.Sprintf("%s: autoMode.%s: %q repeats %s; kept once", e.Where(), k, trunc.Width(e.Text, 60), first))
				return
			}
			seen[e.Text] = e.Where()
			merged = append(merged, e)
		}
		for _, s := range srcs {
			list, ok := s.lists[k]
			if !ok || s.Kind == KindProject {
				continue
			}
			setAnywhere = true
			for _, e := range list {
				if e.Text != DefaultsEntry {
					add(e)
					continue
				}
				if spliced {
					set.Skipped["repeated $defaults"]++
					continue
				}
				spliced = true
				for _, d := range defaults.Lists[k] {
					add(d)
				}
			}
		}
		switch {
		case !setAnywhere:
			for _, d := range defaults.Lists[k] {
				add(d)
			}
		case spliced:
			set.DefaultsUsed[k] = "spliced"
		default:
			set.DefaultsUsed[k] = "replaced"
		}
		set.Lists[k] = merged
	}
	mode := ""
	for _, s := range srcs {
		if s.DefaultMode != "" {
			mode = s.DefaultMode
			break
		}
	}
	if mode != "" && mode != "auto" {
		set.Warnings = append(set.Warnings, fmt.Sprintf("permissions.defaultMode is %q: these rules apply to sessions started in auto mode (--permission-mode auto, Shift+Tab)", mode))
	}
	return set
}

// Summary reports an import: the entries per list and source kind, the
// rules written, and what was skipped (by reason) or is worth a look.
type Summary struct {
	Sources  []SourceSummary `json:"sources"`
	Defaults string          `json:"defaults"`
	// Entries counts the merged entries per list.
	Entries  map[string]int `json:"entries"`
	Rules    int            `json:"rules"`
	Tiers    int            `json:"tiers"`
	Skipped  map[string]int `json:"skipped"`
	Warnings []string       `json:"warnings"`
}

// SourceSummary counts one settings file's autoMode entries per list.
type SourceSummary struct {
	Kind    string         `json:"kind"`
	Path    string         `json:"path"`
	Entries map[string]int `json:"entries"`
}

// Import reads the settings files (KIND:PATH or PATH, see ParseSpec),
// merges them with the defaults (defaultsPath "" for apeval's copy) and
// writes the policy to w. The error is the first unreadable file; nothing
// is written then.
func Import(specs []string, defaultsPath string, w io.Writer) (*Summary, error) {
	return ImportRules(specs, defaultsPath, RulesBoth, w)
}

// Which rules ImportRules writes.
const (
	RulesBoth       = "both"       // one per entry and the classifier's whole decision
	RulesEntries    = "entries"    // one per hard_deny and soft_deny entry
	RulesClassifier = "classifier" // only AggregateRuleID, what the vendor's decisions answer
)

// RuleSets lists the values of ImportRules' which.
var RuleSets = []string{RulesBoth, RulesEntries, RulesClassifier}

// ImportRules is Import writing the rules which selects.
func ImportRules(specs []string, defaultsPath, which string, w io.Writer) (*Summary, error) {
	defaults, err := LoadDefaults(defaultsPath)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Defaults: defaults.Agent + " " + defaults.Version + " (" + defaults.File + ")", Entries: map[string]int{}}
	warn := func(s string) { sum.Warnings = append(sum.Warnings, s) }
	var sources []*Source
	for _, spec := range specs {
		kind, path := ParseSpec(spec)
		src, err := Read(kind, path, warn)
		if err != nil {
			return nil, err
		}
		ss := SourceSummary{Kind: kind, Path: path, Entries: map[string]int{}}
		for k, l := range src.lists {
			n := 0
			for _, e := range l {
				if e.Text != DefaultsEntry {
					n++
				}
			}
			ss.Entries[k] = n
		}
		sum.Sources = append(sum.Sources, ss)
		sources = append(sources, src)
	}
	set := Merge(sources, defaults)
	sum.Warnings = append(sum.Warnings, set.Warnings...)
	sum.Skipped = set.Skipped
	for _, k := range Keys {
		sum.Entries[k] = len(set.Lists[k])
	}
	tiers := set.Tiers(func(s string) {
		sum.Skipped["permissions.allow rule not modeled"]++
		warn(s)
	})
	sum.Tiers = len(tiers)
	set.which = which
	sum.Rules = len(set.Rules())
	return sum, set.Write(w, tiers)
}
