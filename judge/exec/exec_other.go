//go:build !unix

package exec

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) {
	// The process may already be gone; then there is nothing left to kill.
	_ = cmd.Process.Kill()
}
