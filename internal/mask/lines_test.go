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

// A judge's warning reaches the log prefixed and masked; the writer says
// it wrote what it was given.
func TestWriterPrefixesAndMasks(t *testing.T) {
	var b strings.Builder
	w := Writer(&b, "apeval: ")
	key := "sk-proj-EXAMPLEa1b2c3d4e5f6g7h8i9j0"
	msg := "warning: server answered 401 for key " + key + "\n"
	n, err := w.Write([]byte(msg))
	if err != nil || n != len(msg) {
		t.Fatalf("wrote %d, %v", n, err)
	}
	if got := b.String(); strings.Contains(got, key) || !strings.HasPrefix(got, "apeval: warning: server answered 401 for key ") || got != "apeval: "+Lines(msg) {
		t.Errorf("log line %q", got)
	}
}
