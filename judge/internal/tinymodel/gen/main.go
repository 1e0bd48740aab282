// Command gen writes the tiny GGUF model used by the real-Ollama end-to-end
// tests (.ci/e2e-ollama.sh): gen -o tiny.gguf [-seed N].
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/apeval/apeval/judge/internal/tinymodel"
)

func main() {
	out := flag.String("o", "tiny.gguf", "output GGUF file")
	seed := flag.Uint64("seed", 1, "seed of the random weights")
	flag.Parse()
	if err := tinymodel.Write(*out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
