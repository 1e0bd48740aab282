//go:build !noobjstore

package objstore

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// With STORAGE_EMULATOR_HOST set, gs:// goes to that host over plain HTTP
// with no credential: none is looked for (a credentials file that does not
// exist is not even opened) and no Authorization header is sent. Without
// it, missing Application Default Credentials are an error naming where
// they were looked for (the missing file here, so nothing on the network is
// tried).
func TestGCSEmulatorAndCredentials(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+"?prefix="+r.URL.Query().Get("prefix")+" auth="+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"storage#objects"}`))
	}))
	defer srv.Close()
	missing := filepath.Join(t.TempDir(), "no-such-key.json")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", missing)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(srv.URL, "http://"))
	used, err := Exists(context.Background(), "gs://bkt/runs/x")
	if err != nil || used {
		t.Fatalf("Exists through the emulator = %v, %v", used, err)
	}
	if len(got) != 1 || got[0] != "GET /storage/v1/b/bkt/o?prefix=runs/x/ auth=" {
		t.Fatalf("the emulator saw %q, want one unauthenticated listing of runs/x/", got)
	}

	t.Setenv("STORAGE_EMULATOR_HOST", "")
	_, err = Exists(context.Background(), "gs://bkt/runs/x")
	if err == nil || !strings.Contains(err.Error(), "no Google Cloud credentials") || !strings.Contains(err.Error(), "no-such-key.json") || !strings.Contains(err.Error(), "gs://bkt/runs/x") {
		t.Fatalf("without credentials: err = %v", err)
	}
}
