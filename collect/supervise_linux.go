package collect

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd's process when this one dies, so
// that a collecting child does not outlive a SIGKILLed parent.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
