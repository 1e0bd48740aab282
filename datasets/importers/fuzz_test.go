package importers

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/apeval/apeval/datasets"
)

// FuzzLineImporters feeds one arbitrary input to every line-based
// importer: none may panic, every record is accounted for (a case, a skip
// or an error), and every case it writes reads back through
// datasets.Reader.
func FuzzLineImporters(f *testing.F) {
	for _, p := range []string{transcriptFile, hooksFile, "testdata/trajectory-events/events.jsonl",
		"testdata/codex-rollout/legacy/rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl",
		"testdata/claude-code-stream-json/run.jsonl", "testdata/codex-exec-json/exec.jsonl", "testdata/claude-code-otel/logs.jsonl",
		"testdata/otel-genai-spans/traces.jsonl", "testdata/gemini-cli/tmp/9f86d081884c7d65/chats/session-2026-01-20T08-30-7a8b9c0d.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			f.Add(line)
		}
	}
	// Hook lines carrying the masker shapes of the second hardening round.
	for _, cmd := range []string{"aws configure set aws_secret_access_key wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
		"redis-cli -u redis://:S3cretPw9x@cache:6379/0", "psql postgresql://u:ab/cd@h/db",
		"curl https://hooks.slack.com/services/T01ABCDEF/B02GHIJKL/x7Yz9AbCdEfGhIjKlMnOpQrS",
		"sshpass -p Hunter2Pass ssh deploy@web1", "az login -u app -p S3cr3tAzPw", "echo pw | sudo -S true",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0Ab1cBCADnq8u2\n-----END PGP PRIVATE KEY BLOCK-----"} {
		f.Add([]byte(testHookPayload("s", "toolu_f", cmd, "")))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, format := range []string{"claude-code-transcript", "claude-code-hooks", "codex-rollout", "trajectory-events",
			"claude-code-stream-json", "codex-exec-json", "claude-code-otel", "otel-genai-spans", "gemini-cli", Auto} {
			var buf bytes.Buffer
			sum, err := Import(format, []string{"-"}, Options{Stdin: bytes.NewReader(in)}, func(c *datasets.Case) error {
				return datasets.WriteJSONL(&buf, c)
			}, nil)
			if err != nil {
				if format == Auto && strings.Contains(err.Error(), "could not be told") {
					continue // nothing in the input says what it is: an error, as it should be
				}
				t.Fatalf("%s: %v", format, err)
			}
			r := datasets.Open([]string{"-"}, &buf)
			n := 0
			for r.Scan() {
				if rec := r.Record(); rec.Err != nil {
					t.Fatalf("%s: output does not validate: %v\ninput %q", format, rec.Err, in)
				}
				n++
			}
			r.Close()
			if n != sum.Cases {
				t.Fatalf("%s: %d cases read back, summary says %d", format, n, sum.Cases)
			}
			skipped := 0
			for _, v := range sum.Skipped {
				skipped += v
			}
			if sum.Records > 0 && sum.Cases+skipped+sum.Errors == 0 {
				t.Fatalf("%s: %d records, none accounted for", format, sum.Records)
			}
		}
	})
}

func FuzzParsePyDict(f *testing.F) {
	for _, s := range []string{`{'a': 1, "b": [True, None, (1, 2)], 'c': {'d': '''x'''}}`, `{}`, `{'a': '\u00e9'}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parsePyDict(s)
		if err == nil && m == nil {
			t.Fatal("nil dict without an error")
		}
	})
}
