package localcluster

import "syscall"

// sysProcAttr ends the control plane with the process that started it, so a
// test binary killed by a timeout leaves no kube-apiserver behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
