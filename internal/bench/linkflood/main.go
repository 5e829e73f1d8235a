// Command linkflood serves the hostile link flood (fixtures/hostile) on
// 127.0.0.1 and prints its URL, for .ci/bench/linkflood.sh to scan with the real
// binary. With -html every page is HTML, whatever the client accepts.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/agentready/agentready/fixtures/hostile"
)

func main() {
	htmlOnly := flag.Bool("html", false, "serve the flood as HTML anchors only")
	flag.Parse()
	h := hostile.LinkFlood()
	if *htmlOnly {
		h = hostile.HTMLLinkFlood()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/\n", ln.Addr())
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
