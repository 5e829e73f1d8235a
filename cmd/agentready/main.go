// Command agentready tells whether a web API is ready for AI agents.
package main

import (
	"os"

	"github.com/agentready/agentready/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}
