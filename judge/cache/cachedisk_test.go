package cache

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A cache that cannot be written because the disk is full (here: a file
// size limit in a child process) is not called damaged, nothing is moved
// aside, and the message says the disk is full, naming --no-cache once.
func TestCacheFullDiskIsNotDamage(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("APEVAL_CACHE_FSIZE_DIR"); dir != "" {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}); err != nil {
			fmt.Println("setrlimit:", err)
			os.Exit(3)
		}
		c, err := Open(dir)
		if err == nil {
			c.Close()
			fmt.Println("opened")
			os.Exit(0)
		}
		fmt.Println(err)
		os.Exit(1)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCacheFullDiskIsNotDamage$")
	cmd.Env = append(os.Environ(), "APEVAL_CACHE_FSIZE_DIR="+dir)
	out, _ := cmd.CombinedOutput()
	msg := string(out)
	if !strings.Contains(msg, "disk is full") || strings.Contains(msg, "damaged") || strings.Count(msg, "--no-cache") != 1 {
		t.Fatalf("message: %s", msg)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*damaged*")); len(left) > 0 {
		t.Fatalf("moved aside: %v", left)
	}
}
