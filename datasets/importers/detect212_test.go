package importers

import (
	"os"
	"path/filepath"
	"testing"
)

// Claude Code 2.1.2xx transcripts carry session_id beside sessionId on
// their user, assistant and attachment entries, and start with
// last-prompt, mode and permission-mode entries (a public 2.1.212
// session's transcript, as its hook saved it): detection read them as
// stream-json, so the summary and every case's provenance said
// claude-code-stream-json. A stream-json message has no sessionId or
// parentUuid. These lines are written for the test in that shape.
func TestDetectTranscriptWithSessionID(t *testing.T) {
	lines := `{"type":"last-prompt","leafUuid":"u2","sessionId":"s-212"}
{"type":"mode","mode":"normal","sessionId":"s-212"}
{"type":"permission-mode","permissionMode":"default","sessionId":"s-212"}
{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"list the files"},"uuid":"u1","timestamp":"2026-07-31T22:30:28.836Z","cwd":"/w","sessionId":"s-212","session_id":"s-212","version":"2.1.212"}
{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"uuid":"u2","timestamp":"2026-07-31T22:30:35.280Z","cwd":"/w","sessionId":"s-212","session_id":"s-212","version":"2.1.212"}
`
	p := filepath.Join(t.TempDir(), "s-212.jsonl")
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	f, why, err := Detect([]string{p}, nil)
	if err != nil || f != "claude-code-transcript" {
		t.Fatalf("Detect = %q (%s), %v; want claude-code-transcript", f, why, err)
	}
	// stream-json itself is still told apart.
	sj := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(sj, []byte(`{"type":"system","subtype":"init","session_id":"s1","cwd":"/w","model":"m","permissionMode":"default","tools":[]}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"x1"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, why, err := Detect([]string{sj}, nil); err != nil || f != "claude-code-stream-json" {
		t.Fatalf("stream-json: Detect = %q (%s), %v", f, why, err)
	}
}
