package simulate

import (
	"strings"
	"testing"
)

// TestResolveByModelName: --cascade, --vote and --judge take a judge by
// its model name as `simulate --help` shows ("qwen2.5:3b>qwen2.5:7b"): on
// a live run (identities "ollama/qwen2.5:3b@digest+p1") and on the
// sample's recorded one, where neither name is a prefix or a suffix of
// an identity. An exact model name wins over a longer one it begins; a
// name that begins two models is ambiguous.
func TestResolveByModelName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ids        []string
		name, want string
	}{
		{[]string{"ollama/qwen2.5:3b@1a2b3c4d5e6f+p1", "ollama/qwen2.5:7b@9f8e7d6c5b4a+p1"}, "qwen2.5:3b", "ollama/qwen2.5:3b@1a2b3c4d5e6f+p1"},
		{[]string{"ollama/qwen2.5:3b@1a2b3c4d5e6f+p1", "ollama/qwen2.5:7b@9f8e7d6c5b4a+p1"}, "qwen2.5:7b", "ollama/qwen2.5:7b@9f8e7d6c5b4a+p1"},
		{[]string{"recorded/ollama/qwen2.5:3b", "recorded/ollama/qwen2.5:7b-instruct-q4_K_M"}, "qwen2.5:7b", "recorded/ollama/qwen2.5:7b-instruct-q4_K_M"},
		{[]string{"recorded/ollama/qwen2.5:3b", "recorded/ollama/qwen2.5:7b-instruct-q4_K_M"}, "qwen2.5:3b", "recorded/ollama/qwen2.5:3b"},
		{[]string{"ollama/qwen2.5:7b@aa+p1", "ollama/qwen2.5:7b-instruct@bb+p1"}, "qwen2.5:7b", "ollama/qwen2.5:7b@aa+p1"},
		// The forms that worked before still do.
		{[]string{"ollama/qwen2.5:3b@aa+p1", "ollama/qwen2.5:7b@bb+p1"}, "ollama:qwen2.5:7b", "ollama/qwen2.5:7b@bb+p1"},
		{[]string{"A", "B"}, "B", "B"},
	} {
		d := &Data{}
		for _, id := range tc.ids {
			d.Judges = append(d.Judges, Judge{ID: id})
		}
		i, err := d.resolve(tc.name)
		if err != nil || d.Judges[i].ID != tc.want {
			t.Errorf("%q among %v: got %d %v, want %s", tc.name, tc.ids, i, err, tc.want)
		}
	}
	d := &Data{Judges: []Judge{{ID: "ollama/qwen2.5:7b-a@aa+p1"}, {ID: "ollama/qwen2.5:7b-b@bb+p1"}}}
	if _, err := d.resolve("qwen2.5:7b"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("a name that begins two models: %v, want ambiguous", err)
	}
}
