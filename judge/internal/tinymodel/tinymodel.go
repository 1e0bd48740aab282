// Package tinymodel generates a tiny llama-architecture GGUF model for the
// end-to-end tests of the judge stage against a real `ollama serve`.
//
// The model is meaningless as a language model (2 layers, 64 dimensions,
// random weights) but it loads in Ollama's llama.cpp runner in milliseconds
// and answers in a few hundred milliseconds on a CPU, so the tests exercise
// the real server: model creation, digests, structured output, timings.
//
// Random weights obey Ollama's JSON-schema grammar but rarely close arrays
// or numbers, so the model carries a fixed output bias: one embedding
// dimension is a constant, and the same dimension of the output matrix holds
// a preference per token (end of text first, then the characters that close
// JSON values soonest; whitespace last). Under the grammar, the preferred
// path through any schema is its shortest valid answer.
package tinymodel

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/ollama/ollama/fs/ggml"
)

// Shape of the generated model.
const (
	Layers     = 2
	Embedding  = 64
	Heads      = 4
	FeedFwd    = 128
	ContextLen = 2048
)

// Token IDs: the 256 byte tokens come first, indexed by byte value, then
// the merged tokens, then BOS and EOS.
const (
	byteTokens = 256
	mergeCount = 2
	BOS        = byteTokens + mergeCount
	EOS        = BOS + 1
	VocabSize  = EOS + 1
)

// mergedPairs are the BPE merges. llama.cpp refuses a GPT-2 vocabulary
// without at least one merge; these are harmless ones.
var mergedPairs = [mergeCount][2]byte{{'{', '"'}, {'"', ':'}}

// biasDim is the embedding dimension that carries the output bias.
const biasDim = 0

// biasScale turns a preference into a logit gap large enough that the
// random part of the weights never reorders the preferred tokens.
const biasScale = 4

// Token types of the GGUF vocabulary.
const (
	typeNormal  = 1
	typeControl = 3
)

// preference returns the output bias of a token. The order makes the
// shortest valid completion of any JSON schema the most likely one.
func preference(tok int) float32 {
	switch tok {
	case EOS:
		return 12
	case BOS:
		return -8
	}
	if tok >= byteTokens {
		return -2 // merged tokens: allowed but never preferred
	}
	switch b := byte(tok); {
	case b == '{':
		return 10
	case b == ']':
		return 9
	case b == '}':
		return 8
	case b == '"':
		return 7
	case b == ',':
		return 6
	case b == '1':
		return 5 // "version": 1 and a confidence of 1 are both valid
	case b >= '0' && b <= '9':
		return 4 - float32(b-'0')*0.1
	case b == 'n':
		return 3
	case b >= 'a' && b <= 'z':
		return 2 - float32(b-'a')*0.05
	case b == ' ' || b == '\t' || b == '\n' || b == '\r':
		return -6
	default:
		return -1
	}
}

// byteToUnicode is GPT-2's byte-level mapping: printable bytes stand for
// themselves, the others are shifted to code points from U+0100 on.
func byteToUnicode() [256]rune {
	var m [256]rune
	n := 0
	for b := range 256 {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}

// vocabulary returns the token strings, types and merges.
func vocabulary() (tokens []string, types []int32, merges []string) {
	m := byteToUnicode()
	for b := range byteTokens {
		tokens = append(tokens, string(m[b]))
		types = append(types, typeNormal)
	}
	for _, p := range mergedPairs {
		l, r := string(m[p[0]]), string(m[p[1]])
		tokens = append(tokens, l+r)
		types = append(types, typeNormal)
		merges = append(merges, l+" "+r)
	}
	tokens = append(tokens, "<s>", "</s>")
	types = append(types, typeControl, typeControl)
	return tokens, types, merges
}

// f32 is a tensor's data, written little-endian.
type f32 []float32

func (d f32) WriteTo(w io.Writer) (int64, error) {
	buf := make([]byte, 4*len(d))
	for i, v := range d {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	n, err := w.Write(buf)
	return int64(n), err
}

// Config is the model's metadata.
func Config() ggml.KV {
	tokens, types, merges := vocabulary()
	return ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           "apeval-tiny",
		"general.file_type":                      uint32(0), // all F32
		"general.alignment":                      uint32(32),
		"llama.context_length":                   uint32(ContextLen),
		"llama.embedding_length":                 uint32(Embedding),
		"llama.block_count":                      uint32(Layers),
		"llama.feed_forward_length":              uint32(FeedFwd),
		"llama.attention.head_count":             uint32(Heads),
		"llama.attention.head_count_kv":          uint32(Heads),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.dimension_count":             uint32(Embedding / Heads),
		"llama.rope.freq_base":                   float32(10000),
		"llama.vocab_size":                       uint32(VocabSize),
		"tokenizer.ggml.model":                   "gpt2",
		"tokenizer.ggml.pre":                     "default",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.merges":                  merges,
		"tokenizer.ggml.bos_token_id":            uint32(BOS),
		"tokenizer.ggml.eos_token_id":            uint32(EOS),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}
}

// Tensors returns the model's weights, deterministic from seed.
func Tensors(seed uint64) []*ggml.Tensor {
	rng := rand.New(rand.NewPCG(seed, 0x61706576616c)) // "apeval"
	random := func(n int, std float64) f32 {
		d := make(f32, n)
		for i := range d {
			d[i] = float32(rng.NormFloat64() * std)
		}
		return d
	}
	ones := func(n int) f32 {
		d := make(f32, n)
		for i := range d {
			d[i] = 1
		}
		return d
	}
	var ts []*ggml.Tensor
	add := func(name string, data f32, shape ...uint64) {
		ts = append(ts, &ggml.Tensor{Name: name, Kind: uint32(ggml.TensorTypeF32), Shape: shape, WriterTo: data})
	}

	// GGUF shapes list the innermost dimension first: a [n_in, n_out]
	// matrix is n_out rows of n_in values.
	embd := random(Embedding*VocabSize, 0.02)
	out := random(Embedding*VocabSize, 0.02)
	for tok := range VocabSize {
		embd[tok*Embedding+biasDim] = 1
		out[tok*Embedding+biasDim] = biasScale * preference(tok)
	}
	add("token_embd.weight", embd, Embedding, VocabSize)
	add("output_norm.weight", ones(Embedding), Embedding)
	add("output.weight", out, Embedding, VocabSize)
	for l := range Layers {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", ones(Embedding), Embedding)
		add(p+"attn_q.weight", random(Embedding*Embedding, 0.02), Embedding, Embedding)
		add(p+"attn_k.weight", random(Embedding*Embedding, 0.02), Embedding, Embedding)
		add(p+"attn_v.weight", random(Embedding*Embedding, 0.02), Embedding, Embedding)
		add(p+"attn_output.weight", random(Embedding*Embedding, 0.02), Embedding, Embedding)
		add(p+"ffn_norm.weight", ones(Embedding), Embedding)
		add(p+"ffn_gate.weight", random(Embedding*FeedFwd, 0.02), Embedding, FeedFwd)
		add(p+"ffn_up.weight", random(Embedding*FeedFwd, 0.02), Embedding, FeedFwd)
		add(p+"ffn_down.weight", random(FeedFwd*Embedding, 0.02), FeedFwd, Embedding)
	}
	return ts
}

// Write writes the model as a GGUF file at path.
func Write(path string, seed uint64) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if err := ggml.WriteGGUF(f, Config(), Tensors(seed)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
