package mask

import (
	"strings"
	"testing"
)

func TestLinesMasksEachLineOnItsOwn(t *testing.T) {
	key := "sk-proj-EXAMPLEa1b2c3d4e5f6g7h8i9j0"
	in := "a.jsonl:3: args: token " + key + "\na.jsonl:4: tool.name: unknown key"
	out := Lines(in)
	if strings.Contains(out, key) {
		t.Errorf("a secret survived: %q", out)
	}
	if got := strings.Split(out, "\n"); len(got) != 2 || got[1] != String("a.jsonl:4: tool.name: unknown key") {
		t.Errorf("lines %q: want the second masked as a line of its own", got)
	}
	if Lines("plain") != String("plain") {
		t.Error("one line is not String's")
	}
}
