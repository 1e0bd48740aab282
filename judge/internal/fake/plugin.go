package fake

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	pluginOnce sync.Once
	pluginPath string
	pluginErr  error
	pluginDir  string
)

// ExamplePlugin builds judge/plugin/example once per test binary; a
// TestMain calls RemovePlugin at the end.
func ExamplePlugin(t testing.TB) string {
	t.Helper()
	pluginOnce.Do(func() {
		pluginDir, pluginErr = os.MkdirTemp("", "apeval-plugin-")
		if pluginErr != nil {
			return
		}
		pluginPath = filepath.Join(pluginDir, "example-judge")
		out, err := exec.Command("go", "build", "-o", pluginPath, "github.com/apeval/apeval/judge/plugin/example").CombinedOutput()
		if err != nil {
			pluginErr = err
			t.Logf("%s", out)
		}
	})
	if pluginErr != nil {
		t.Fatalf("build example plugin: %v", pluginErr)
	}
	return pluginPath
}

// RemovePlugin deletes what ExamplePlugin built (best effort: it is under
// the system temp dir anyway).
func RemovePlugin() {
	if pluginDir != "" {
		_ = os.RemoveAll(pluginDir)
	}
}
