// CoreDNS with only the plugins the real node's cluster DNS uses, so the build compiles (and downloads) a fraction
// of the full distribution: bind (the bridge address), ready (node.sh waits on it), errors, kubernetes (names of
// the API's Services and EndpointSlices) and forward (every other name, to the host's resolver).
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() {
	// Execution order, as in CoreDNS's plugin.cfg.
	if err := dnsserver.SetDirectives([]string{"bind", "ready", "errors", "kubernetes", "forward"}); err != nil {
		panic(err)
	}
	coremain.Run()
}
