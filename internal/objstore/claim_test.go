package objstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Runs started at once into one prefix: exactly one claims it. A prefix a
// finished run left objects in cannot be claimed either.
func TestClaimOnePrefixOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	raw := "file://" + filepath.ToSlash(filepath.Join(dir, "b", "same"))
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	var won []func(context.Context) error
	inUse := 0
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			rel, err := Claim(ctx, raw)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won = append(won, rel)
			case errors.Is(err, ErrPrefixInUse):
				inUse++
			default:
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(won) != 1 || inUse != n-1 {
		t.Fatalf("%d runs claimed the prefix, %d were refused", len(won), inUse)
	}
	// The winner uploads its run and drops the claim.
	run := t.TempDir()
	if err := os.WriteFile(filepath.Join(run, Commit), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Upload(ctx, run, raw); err != nil {
		t.Fatal(err)
	}
	if err := won[0](ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := Claim(ctx, raw); !errors.Is(err, ErrPrefixInUse) {
		t.Fatalf("claim of a used prefix: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "same", ClaimObject)); !os.IsNotExist(err) {
		t.Fatalf("a refused claim left the claim object: %v", err)
	}
}
