// Command testserver serves the demo API in a process of its own, as
// harnesstest.Serve describes: the harness tests start it through
// `go run`, the way developers start their apps; the other tests start
// their own binary as the same server.
//
//	testserver -addr 127.0.0.1:0 [-defect NAME]... [-ignore-term] [-spawn] [-silent] [-mark-after N]
package main

import (
	"os"

	"github.com/agentready/agentready/internal/harness/harnesstest"
)

func main() { os.Exit(harnesstest.Serve(os.Args[1:])) }
