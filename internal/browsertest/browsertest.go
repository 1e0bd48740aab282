// Package browsertest opens the headless Chromium the page tests drive
// (the labeling page of `apeval label serve`, `apeval diff`'s diff.html)
// through chromedp, and gathers what the page logs to its console. Tests
// only.
//
// Where to look:
//
//	browsertest.go  Chromium, Open
package browsertest

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium is the browser the tests run: $CHROMIUM, else /usr/bin/chromium
// (`apt-get install -y chromium`).
func Chromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// Open starts a headless Chromium at 1280 × 900, closed when the test ends,
// with a context that ends after timeout. console returns the console's
// errors, warnings and exceptions so far: a page that works logs none.
func Open(t testing.TB, timeout time.Duration) (ctx context.Context, console func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium()), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel = chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, timeout)
	t.Cleanup(cancel)
	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
				mu.Lock()
				errs = append(errs, m.String())
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), errs...)
	}
}
