package tinymodel

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/fs/ggml"
)

func write(t *testing.T, seed uint64) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := Write(path, seed); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

func TestWriteDecodes(t *testing.T) {
	path, raw := write(t, 1)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ggml.Decode(f, -1)
	if err != nil {
		t.Fatal(err)
	}
	kv := g.KV()
	checks := []struct {
		name      string
		got, want any
	}{
		{"architecture", kv.Architecture(), "llama"},
		{"block count", kv.BlockCount(), uint64(Layers)},
		{"embedding", kv.EmbeddingLength(), uint64(Embedding)},
		{"context", kv.ContextLength(), uint64(ContextLen)},
		{"tokenizer", kv.String("tokenizer.ggml.model"), "gpt2"},
		{"tokens", len(kv.Strings("tokenizer.ggml.tokens")), VocabSize},
		{"types", len(kv.Ints("tokenizer.ggml.token_type")), VocabSize},
		{"merges", len(kv.Strings("tokenizer.ggml.merges")), mergeCount},
		{"eos", kv.Uint("tokenizer.ggml.eos_token_id"), uint32(EOS)},
		{"bos", kv.Uint("tokenizer.ggml.bos_token_id"), uint32(BOS)},
		{"tensors", len(g.Tensors().Items()), 3 + 9*Layers},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if len(raw) < 400_000 || len(raw) > 600_000 {
		t.Errorf("file is %d bytes, want about 470 KB", len(raw))
	}

	// Every token embedding carries the constant bias dimension, and the
	// output matrix carries each token's preference in it.
	base := g.Tensors().Offset
	column := func(name string) []float32 {
		for _, tt := range g.Tensors().Items() {
			if tt.Name != name {
				continue
			}
			if got, want := tt.Shape, []uint64{Embedding, VocabSize}; !equal(got, want) {
				t.Fatalf("%s shape %v, want %v", name, got, want)
			}
			var col []float32
			for tok := range VocabSize {
				at := base + tt.Offset + uint64(4*(tok*Embedding+biasDim))
				col = append(col, math.Float32frombits(binary.LittleEndian.Uint32(raw[at:])))
			}
			return col
		}
		t.Fatalf("no tensor %s", name)
		return nil
	}
	for tok, v := range column("token_embd.weight") {
		if v != 1 {
			t.Fatalf("token_embd[%d][bias] = %v, want 1", tok, v)
		}
	}
	for tok, v := range column("output.weight") {
		if want := biasScale * preference(tok); v != want {
			t.Fatalf("output[%d][bias] = %v, want %v", tok, v, want)
		}
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestWriteIsDeterministic(t *testing.T) {
	_, a := write(t, 7)
	_, b := write(t, 7)
	_, c := write(t, 8)
	if !bytes.Equal(a, b) {
		t.Error("same seed gave different files")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same file")
	}
}

func TestPreferenceOrder(t *testing.T) {
	// Each token must be preferred over the next: this order is what makes
	// the grammar-constrained answer the shortest valid JSON.
	order := []int{EOS, '{', ']', '}', '"', ',', '1', '0', '9', 'n', 'z', '.', BOS - 1, ' ', BOS}
	for i := 1; i < len(order); i++ {
		a, b := order[i-1], order[i]
		if preference(a) <= preference(b) {
			t.Errorf("preference(%d) = %v, want > preference(%d) = %v", a, preference(a), b, preference(b))
		}
	}
}

func TestVocabulary(t *testing.T) {
	tokens, types, merges := vocabulary()
	seen := map[string]bool{}
	for i, tok := range tokens {
		if seen[tok] {
			t.Errorf("token %d %q is a duplicate", i, tok)
		}
		seen[tok] = true
	}
	for b := range byteTokens {
		if utf8.RuneCountInString(tokens[b]) != 1 {
			t.Errorf("byte token %d = %q, want one rune", b, tokens[b])
		}
	}
	cases := []struct {
		id   int
		want string
	}{
		{'a', "a"}, {'{', "{"}, {' ', "Ġ"}, {'\n', "Ċ"}, {BOS, "<s>"}, {EOS, "</s>"}, {byteTokens, `{"`},
	}
	for _, c := range cases {
		if tokens[c.id] != c.want {
			t.Errorf("token %d = %q, want %q", c.id, tokens[c.id], c.want)
		}
	}
	if types[BOS] != typeControl || types[EOS] != typeControl || types['a'] != typeNormal {
		t.Errorf("token types of BOS, EOS, 'a' = %d, %d, %d", types[BOS], types[EOS], types['a'])
	}
	if merges[0] != `{ "` {
		t.Errorf("first merge = %q", merges[0])
	}
}
