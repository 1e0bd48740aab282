package importers

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A project root is the directory a user works in. Agents (or the hooks a
// project installs) keep their logs in a few known places under it; given
// the root, an import reads those and nothing else, so the project's own
// package.json or build output is never taken for a log:
//
//	.opencode/opencode.db        the Go OpenCode (opencode-ai/opencode)
//	.crush/crush.db              Charm's Crush (its successor; same tables)
//	.claude/…                    hook logs a project's hooks write (.claude/logs/pre_tool_use.json…), transcripts
//	logs/…                       the same hook scripts' other common place (logs/pre_tool_use.json)
//	.gemini/…, .codex/…          Gemini CLI chats, Codex rollouts kept in the project
//	.local/share/opencode/…      OpenCode's data directory (a home directory given as the root)
//
// Under each, a file is a store when it is an OpenCode or Crush database
// by name, an OpenCode storage tree by layout, or a .json/.jsonl file
// whose first records read as one of the formats; anything else (settings,
// commands, notes) is passed over. A .json/.jsonl file that cannot be
// opened (permissions, a corrupt gzip header) is a store of format
// Unreadable: the import names it with its reason and reads the others.
var projectDirs = []string{".opencode", ".crush", ".claude", "logs", ".gemini", ".codex", filepath.Join(".local", "share", "opencode")}

// Unreadable is the Format of a store whose file could not be opened to
// tell its format.
const Unreadable = "unreadable"

// maxProjectFiles caps the files sniffed under one project root.
const maxProjectFiles = 20000

// Store is an agent's log found under a project root: the format it is
// imported with and its files.
type Store struct {
	// Format is the --from name the store is read with (Unreadable: its
	// file could not be opened to tell; What says why).
	Format string `json:"format"`
	// Root is the project root it was found under, as given ("" for a
	// source named on the command line beside the roots).
	Root string `json:"root"`
	// Path is where it was found, relative to the root.
	Path string `json:"path"`
	// What names the agent or log when the format's name does not say it
	// (Charm Crush's database read as opencode).
	What  string   `json:"what,omitempty"`
	files []string // absolute or as given: what the import reads
}

// FindStores lists the agents' logs under a project root, in projectDirs
// order (nil when root holds none).
func FindStores(root string) []Store {
	var stores []Store
	sniffed := 0
	for _, dir := range projectDirs {
		base := filepath.Join(root, dir)
		if st, err := os.Stat(base); err != nil || !st.IsDir() {
			continue
		}
		byFormat := map[string]*Store{}
		var order []string
		// A symlinked agent directory (a dotfiles manager links ~/.claude)
		// is walked where it points, and its files named under the root.
		walkBase := base
		if real, err := filepath.EvalSymlinks(base); err == nil {
			walkBase = real
		}
		_ = filepath.WalkDir(walkBase, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if sub, err := filepath.Rel(walkBase, p); err == nil {
				p = filepath.Join(base, sub)
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				switch d.Name() {
				case "node_modules", ".git":
					return filepath.SkipDir
				}
				if r, ok := openCodeRoot(p); ok && r == p {
					stores = append(stores, Store{Format: "opencode", Path: rel, What: "OpenCode's storage", files: []string{p}})
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				// A linked log counts when it links a regular file (not a
				// device, a FIFO or a directory: links are not walked).
				if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
					return nil
				}
			} else if !d.Type().IsRegular() {
				return nil
			}
			if what := agentDB(p); what != "" {
				stores = append(stores, Store{Format: "opencode", Path: rel, What: what, files: []string{p}})
				return nil
			}
			q := stripCompression(p)
			if !strings.HasSuffix(q, ".jsonl") && !strings.HasSuffix(q, ".json") && !strings.HasSuffix(q, ".ndjson") {
				return nil
			}
			if sniffed == maxProjectFiles {
				return filepath.SkipAll
			}
			sniffed++
			f, err := sniffFileErr(p)
			if err != nil {
				stores = append(stores, Store{Format: Unreadable, Path: rel, What: "cannot be read: " + strings.TrimPrefix(err.Error(), p+": "), files: []string{p}})
				return nil
			}
			if f == "" {
				return nil
			}
			s, ok := byFormat[f]
			if !ok {
				s = &Store{Format: f}
				byFormat[f] = s
				order = append(order, f)
			}
			s.files = append(s.files, p)
			return nil
		})
		for _, f := range order {
			s := byFormat[f]
			sort.Strings(s.files)
			if len(s.files) == 1 {
				s.Path, _ = filepath.Rel(root, s.files[0])
			} else {
				s.Path, _ = filepath.Rel(root, commonDir(s.files))
				s.Path += "/"
			}
			stores = append(stores, *s)
		}
	}
	for i := range stores {
		stores[i].Root = root
		stores[i].Path = filepath.ToSlash(stores[i].Path)
	}
	return stores
}

// Files is how many files the store holds.
func (s Store) Files() int { return len(s.files) }

// agentDB names the agent whose database a file is, by its name and
// header ("" when it is none): opencode*.db, crush*.db. A file so named
// that is not empty is one even when its header is not SQLite's (an
// encrypted or damaged database): the import then says what is wrong
// with it, where passing it over would lose it without a word.
func agentDB(p string) string {
	switch {
	case crushDBName(p) && (sqliteFile(p) || nonEmpty(p)):
		return "Charm Crush's database"
	case openCodeDBName(p) && (sqliteFile(p) || nonEmpty(p)):
		return "OpenCode's database"
	}
	return ""
}

// nonEmpty reports whether p is a file with bytes in it.
func nonEmpty(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Size() > 0
}

// crushDBName is how Charm's Crush names its database (<project>/.crush/crush.db).
func crushDBName(p string) bool {
	b := filepath.Base(p)
	return strings.HasPrefix(b, "crush") && strings.HasSuffix(b, ".db")
}

// projectStores resolves the sources when one of them at least is a
// project root: a directory none of whose own layouts (an OpenCode storage
// tree or database directory) the importers read already, holding a store
// (of format, when one is given). Each root gives the stores found under
// it; each other source is a store of its own, read as it would be read
// alone: in format, or in the format its own first records show (--from
// auto), so a hook log or a Codex rollout can be named beside a project.
// ok is false when no source is a root (the sources are read as before);
// err names a source beside the roots that does not exist or whose format
// cannot be told (nothing is read then).
func projectStores(format string, sources []string, stdin *bufio.Reader) (stores []Store, roots []string, ok bool, err error) {
	found := make([][]Store, len(sources))
	for i, src := range sources {
		found[i] = rootStores(format, src)
		if found[i] != nil {
			roots = append(roots, src)
		}
	}
	if len(roots) == 0 {
		return nil, nil, false, nil
	}
	for i, src := range sources {
		if found[i] != nil {
			stores = append(stores, found[i]...)
			continue
		}
		s := Store{Format: format, Path: src, What: "named beside the project roots", files: []string{src}}
		if src != "-" {
			if _, err := os.Stat(src); err != nil {
				return nil, nil, false, err
			}
		}
		if format == Auto || format == "" {
			f, why, err := Detect([]string{src}, stdin)
			if err != nil {
				return nil, nil, false, err
			}
			s.Format, s.What = f, "named beside the project roots; detected: "+why
		}
		stores = append(stores, s)
	}
	return stores, roots, true, nil
}

// rootStores is the stores (of format, when one is given) under src when
// src is a project root, nil when it is not one.
func rootStores(format, src string) []Store {
	if src == "-" {
		return nil
	}
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil
	}
	if _, own := findOpenCodeDB(src); own {
		return nil
	}
	if _, own := openCodeRoot(src); own {
		return nil
	}
	var found []Store
	for _, s := range FindStores(src) {
		if format == Auto || format == "" || s.Format == format || s.Format == Unreadable {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return nil
	}
	if format != Auto && format != "" && !slices.ContainsFunc(found, func(s Store) bool { return s.Format != Unreadable }) {
		return nil // none in format: the directory is read as that format's files
	}
	return found
}

// noStoreHint says where a project root was looked into, for the error of
// a directory whose format could not be told.
func noStoreHint() string {
	names := make([]string, len(projectDirs))
	for i, d := range projectDirs {
		names[i] = filepath.ToSlash(d) + "/"
	}
	return "no agent log under " + strings.Join(names, ", ")
}

// commonDir is the deepest directory holding every file.
func commonDir(files []string) string {
	dir := filepath.Dir(files[0])
	for _, f := range files[1:] {
		for dir != "." && dir != string(filepath.Separator) && !strings.HasPrefix(f, dir+string(filepath.Separator)) {
			dir = filepath.Dir(dir)
		}
	}
	return dir
}
