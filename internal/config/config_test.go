package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/apeval/apeval/judge/all" // the backends whose keys the checks name
)

func TestParseResolvesPathsAndTimeout(t *testing.T) {
	t.Parallel()
	data := `schema = "apeval.config/v1"
datasets = ["cases.jsonl", "-", "/abs/x.jsonl"]
policy = "policy.toml"
criteria = "crit.toml"
out = "out/{run_id}"
timeout = "3s"
[[judge]]
spec = " openai:m "
base_url = "http://localhost:8000/v1"
prompt = "p.txt"
options = { temperature = 0.2, num_ctx = 4096 }
price_in = 1.5
[slices.night]
limit = 5
`
	c, err := Parse([]byte(data), filepath.Join("proj", "apeval.toml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join("proj", "cases.jsonl"), "-", "/abs/x.jsonl"}
	if strings.Join(c.Datasets, ",") != strings.Join(want, ",") {
		t.Errorf("datasets %q, want %q", c.Datasets, want)
	}
	if c.Policy != filepath.Join("proj", "policy.toml") || c.Criteria != filepath.Join("proj", "crit.toml") ||
		c.Out != filepath.Join("proj", "out", "{run_id}") || c.Judges[0].Prompt != filepath.Join("proj", "p.txt") {
		t.Errorf("paths not relative to the file: %+v", c)
	}
	if c.TimeoutDuration() != 3*time.Second || c.Path != filepath.Join("proj", "apeval.toml") {
		t.Errorf("timeout %s, path %q", c.TimeoutDuration(), c.Path)
	}
	if got := strings.Join(c.Judges[0].OptionStrings(), " "); got != "num_ctx=4096 temperature=0.2 price_in=1.5" {
		t.Errorf("options %q", got)
	}
	if c.Slices["night"].Limit != 5 {
		t.Errorf("slices %+v", c.Slices)
	}
	// A bucket URL is not a path.
	c, err = Parse([]byte(`out = "s3://b/runs"`), filepath.Join("proj", "apeval.toml"))
	if err != nil || c.Out != "s3://b/runs" {
		t.Errorf("bucket out: %q %v", c.Out, err)
	}
}

// Every problem names file:line and the key; several are listed in the
// order of their lines.
func TestParseErrorsNameLineAndKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ toml, want string }{
		{"[[judge]]\nspec = \"exec:./j\"\nbase_url = \"http://x\"\n", "apeval.toml:3: judge[0].base_url: only ollama:, openai:"},
		{"[[judge]]\nspec = \"openai:m\"\nbase_url = \"ftp://x\"\n", `apeval.toml:3: judge[0].base_url: "ftp://x" is not an http(s) URL with a host`},
		{"[[judge]]\nspec = \"ollama:m\"\napi_key_env = \"K\"\n", "apeval.toml:3: judge[0].api_key_env: only openai:"},
		{"[[judge]]\nspec = \"recorded\"\nprompt = \"p.txt\"\n", "apeval.toml:3: judge[0].prompt:"},
		{"[[judge]]\nspec = \" \"\n", "apeval.toml:2: judge[0].spec: required"},
		{"[[judge]]\nspec = \"openai:m\"\nprice_out = -1\n", "apeval.toml:3: judge[0].price_out: must not be negative, got -1"},
		{"schema = \"apeval.config/v9\"\n", `apeval.toml:1: schema: "apeval.config/v9" is not supported (want "apeval.config/v1")`},
		{"concurrency = -2\n", "apeval.toml:1: concurrency: must be at least 1, got -2"},
		{"\ntimeout = \"soon\"\n", `apeval.toml:2: timeout: "soon" is not a positive duration`},
		{"inconclusive = \"maybe\"\n", `apeval.toml:1: inconclusive: "maybe" is not pass or fail`},
		{"[filter]\nlimit = -1\n", "apeval.toml:2: filter.limit: must not be negative, got -1"},
		{"[slices.a]\nsample = -3\n", "apeval.toml:2: slices.a.sample: must not be negative, got -3"},
		{"colour = 1\n", "apeval.toml:1: colour: unknown key"},
		{"policy = [\n", "apeval.toml"},
	} {
		_, err := Parse([]byte(tc.toml), "apeval.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %s", tc.toml, err, tc.want)
		}
	}
	// Backend options are free-form; two errors come in line order.
	if _, err := Parse([]byte("[[judge]]\nspec = \"ollama:m\"\noptions = { anything = 1 }\n"), "a.toml"); err != nil {
		t.Errorf("free-form options refused: %v", err)
	}
	// A key misspelt in two [[judge]] blocks: each named at its own line,
	// once; a wrongly typed value at its own element, not the last one.
	two := "[[judge]]\nspec = \"openai:a\"\npromt = \"x\"\n[[judge]]\nspec = \"openai:b\"\npromt = \"y\"\n"
	if _, err := Parse([]byte(two), "a.toml"); err == nil || err.Error() != "a.toml:3: judge[0].promt: unknown key\na.toml:6: judge[1].promt: unknown key" {
		t.Errorf("a key misspelt twice: %v", err)
	}
	typed := "[[judge]]\nspec = \"openai:a\"\n[[judge]]\nspec = 7\n[[judge]]\nspec = \"openai:c\"\n"
	if _, err := Parse([]byte(typed), "a.toml"); err == nil || err.Error() != "a.toml:4: judge[1].spec: incompatible types: TOML value has type int64; destination has type string" {
		t.Errorf("a wrongly typed value in the second block: %v", err)
	}
	_, err := Parse([]byte("concurrency = -1\nbogus = 2\n[filter]\nlimit = -1\n"), "a.toml")
	if err == nil || err.Error() != "a.toml:1: concurrency: must be at least 1, got -1\na.toml:2: bogus: unknown key\na.toml:4: filter.limit: must not be negative, got -1" {
		t.Errorf("several errors: %v", err)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "apeval.toml")
	// The default file may be missing: an empty project.
	c, err := Load(missing, false)
	if err != nil || c.Path != "" {
		t.Fatalf("missing default: %+v %v", c, err)
	}
	// --config FILE must exist: a ReadError (the command names --config).
	_, err = Load(missing, true)
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing --config: %v", err)
	}
	if err := os.WriteFile(missing, []byte("concurrency = 0x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(missing, false); err == nil || errors.As(err, &re) || !strings.Contains(err.Error(), missing) {
		t.Errorf("bad file: %v, want a parse error naming %s", err, missing)
	}
}

func TestCheckServerURL(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"http://localhost:8000/v1", "https://api.example.com"} {
		if err := CheckServerURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://", "localhost:8000", "ftp://x", "://"} {
		if err := CheckServerURL(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if BackendOf(" openai:m@x ") != "openai" || BackendOf("none") != "none" {
		t.Error("BackendOf")
	}
}

// TestMarker: the comment's marker names the --config path, else
// apeval.toml when the working directory has one, else nothing.
func TestMarker(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if got := Marker("ci/apeval.toml"); got != "ci/apeval.toml" {
		t.Errorf("Marker(flag) = %q", got)
	}
	if got := Marker(""); got != "" {
		t.Errorf("no project file: Marker = %q, want none", got)
	}
	if err := os.WriteFile(filepath.Join(dir, Name), []byte("schema = \"apeval.config/v1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Marker(""); got != Name {
		t.Errorf("with apeval.toml: Marker = %q, want %q", got, Name)
	}
}
