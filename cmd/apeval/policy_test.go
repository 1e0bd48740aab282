package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apeval/apeval/replay"
)

func TestPolicyImportCommand(t *testing.T) {
	t.Parallel()
	fx := filepath.Join("..", "..", "replay", "automode", "testdata")
	out := filepath.Join(t.TempDir(), "auto-mode.toml")
	code, stdout, stderr := apeval(t, "", "policy", "import", "--from", "claude-auto-mode",
		"user:"+filepath.Join(fx, "home", ".claude", "settings.json"),
		filepath.Join(fx, "managed", "managed-settings.json"), "--out", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"(user): hard_deny 2, soft_deny 2, allow 5, environment 5", "(managed): hard_deny 1, soft_deny 1",
		"managed-settings.json:11: autoMode.denyLimit: unknown key", "policy import: hard_deny 3, soft_deny 11, allow 10, environment 6; 15 rules"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	pol, err := replay.LoadPolicy(out)
	if err != nil {
		t.Fatalf("run does not accept the written policy: %v", err)
	}
	if len(pol.Rules) != 15 {
		t.Errorf("%d rules, want 15", len(pol.Rules))
	}

	bad := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(bad, []byte("{\n  \"autoMode\": {\n    \"allow\": [\"x\", true]\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = apeval(t, "", "policy", "import", "--from", "claude-auto-mode", bad)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, bad+":3: autoMode.allow[1]: want a string, found a boolean") {
		t.Errorf("bad rule: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr = apeval(t, "", "policy", "import", "--from", "codex", bad); code != exitUsage || !strings.Contains(stderr, "claude-auto-mode") {
		t.Errorf("unknown --from: exit %d, %q", code, stderr)
	}
}
