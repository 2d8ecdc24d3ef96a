// pause: the process that holds a pod sandbox's namespaces. It waits for SIGTERM or SIGINT and exits 0, and reaps
// the children it inherits as PID 1 (containers that share the pod's PID namespace re-parent to it). crdgen builds it
// because there is no registry to pull the usual pause image from.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
