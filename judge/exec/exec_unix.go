//go:build unix

package exec

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the plugin in its own process group so a kill reaches
// whatever sh -c started, not just the shell.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	// The group may already be gone; then there is nothing left to kill.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
