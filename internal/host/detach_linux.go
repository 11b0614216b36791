package host

import "syscall"

// detached starts dockerd in its own session so it outlives the suite.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
