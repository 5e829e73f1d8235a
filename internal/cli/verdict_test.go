package cli

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/fixtures/unreached"
)

// A scan that reached no API resource is not a pass: exit 3, no grade, and
// the first screen says why and what to pass.
func TestScanThatReachedNothingExits3WithTheCause(t *testing.T) {
	r := run(t, "scan", "--no-openapi-discovery", serveHandler(t, unreached.CredentialsOnly()))
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, ExitIncomplete, r.stdout, r.stderr)
	}
	first := strings.Join(strings.SplitN(r.stdout, "\n", 11)[:10], "\n")
	for _, want := range []string{"Grade N/A  (the scan reached no API resource)", "Cause: ", "answered 401 or 403", "pages: "} {
		if !strings.Contains(first, want) {
			t.Errorf("first screen lacks %q:\n%s", want, first)
		}
	}
	if !strings.Contains(r.stderr, "the scan reached no API resource: ") {
		t.Errorf("stderr %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "the scan reached no API resource, so nothing it reports is a pass") {
		t.Errorf("the gate does not say the scan failed for reaching nothing:\n%s", r.stdout)
	}
}

func TestMinCoverageWithoutADocumentFailsTheGate(t *testing.T) {
	r := run(t, "scan", "--no-openapi-discovery", "--min-coverage", "50", serveHandler(t, unreached.Partly()))
	if r.code != ExitGateFailed || !strings.Contains(r.stdout, "coverage unknown: no OpenAPI document declared GET operations") {
		t.Fatalf("exit %d, want %d with the reason\nstdout: %s\nstderr: %s", r.code, ExitGateFailed, r.stdout, r.stderr)
	}
	if r := run(t, "scan", "--min-coverage", "101", serveHandler(t, unreached.Partly())); r.code != ExitUsage {
		t.Errorf("--min-coverage 101: exit %d, want %d", r.code, ExitUsage)
	}
}
