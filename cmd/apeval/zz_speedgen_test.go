package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestZZSpeedGen(t *testing.T) {
	dir := os.Getenv("SPEEDGEN")
	if dir == "" {
		t.Skip()
	}
	for _, s := range []string{"ten", "short", "labeled5", "interleaved", "single"} {
		name := s + "-1m.jsonl"
		if s == "ten" {
			name = "deterministic-1m.jsonl"
		}
		if err := writeShape(filepath.Join(dir, name), s, 1_000_000, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.toml"), []byte(benchDeterministicPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
}
