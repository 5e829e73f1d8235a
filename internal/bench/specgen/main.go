// Command specgen writes the generated descriptions .ci/bench/lint.sh measures
// to stdout:
//
//	specgen synthetic BYTES   a description of at least BYTES bytes
//	specgen duplicates N      N operations sharing one operationId
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/agentready/agentready/internal/spec/spectest"
)

func main() {
	if len(os.Args) != 3 {
		fail()
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fail()
	}
	var data []byte
	switch os.Args[1] {
	case "synthetic":
		data = spectest.Synthetic(n)
	case "duplicates":
		data = spectest.DuplicateOperationIDs(n)
	default:
		fail()
	}
	if _, err := os.Stdout.Write(data); err != nil {
		fmt.Fprintln(os.Stderr, "specgen:", err)
		os.Exit(1)
	}
}

func fail() {
	fmt.Fprintln(os.Stderr, "usage: specgen synthetic BYTES | specgen duplicates N")
	os.Exit(2)
}
