// Command fakejudge serves a fake judge model over HTTP for benchmarks and
// demos: an OpenAI-compatible, Ollama or Anthropic Messages API answering
// every call after a fixed delay with judgetest.Keywords decisions.
//
//	fakejudge -api openai -addr 127.0.0.1:8089 -delay 20ms
//	apeval run --judge openai:fake-judge --openai-base-url http://127.0.0.1:8089/v1
//	fakejudge -api anthropic -addr 127.0.0.1:8090
//	ANTHROPIC_API_KEY=x apeval run --judge anthropic:fake-judge@http://127.0.0.1:8090
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/apeval/apeval/judge/judgetest"
)

func main() {
	api := flag.String("api", "openai", "wire format: openai, ollama or anthropic")
	addr := flag.String("addr", "127.0.0.1:8089", "listen address")
	delay := flag.Duration("delay", 20*time.Millisecond, "time every call takes")
	model := flag.String("model", "fake-judge", "model name served")
	flag.Parse()
	if err := run(*api, *addr, *model, *delay); err != nil {
		fmt.Fprintln(os.Stderr, "fakejudge:", err)
		os.Exit(1)
	}
}

func run(api, addr, model string, delay time.Duration) error {
	opts := judgetest.Options{Model: model, Delay: delay}
	var handler http.Handler
	switch api {
	case "openai":
		handler = judgetest.OpenAIHandler(opts)
	case "ollama":
		handler = judgetest.OllamaHandler(opts)
	case "anthropic":
		handler = judgetest.AnthropicHandler(opts)
	default:
		return fmt.Errorf("-api %q: want openai, ollama or anthropic", api)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			fmt.Fprintln(os.Stderr, "fakejudge: shutdown:", err)
		}
	}()
	fmt.Fprintf(os.Stderr, "fakejudge: %s API for model %s on http://%s (delay %v)\n", api, model, ln.Addr(), delay)
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
