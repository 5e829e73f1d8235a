package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/unreached"
	"github.com/agentready/agentready/internal/longtest"
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

// stallingHeads is the demo with every HEAD request left unanswered until
// the client gives up: only the budget can end the planned probes.
func stallingHeads() http.Handler {
	app := demo.New()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			<-r.Context().Done()
			return
		}
		app.ServeHTTP(w, r)
	})
}

// A scan its budget cut short is not interrupted: it keeps its grade, says
// on its first screen which phase ran out, and leaves the gate to the
// coverage rule.
func TestBudgetCutScanKeepsItsGrade(t *testing.T) {
	longtest.Skip(t, "waits out a 4 s budget twice")
	url := serveHandler(t, stallingHeads())
	path := filepath.Join(t.TempDir(), "r.json")
	r := run(t, "scan", "--budget", "4s", "--timeout", "1m", "--fail-on", "none", "-o", "json="+path, url)
	if r.code != ExitOK {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, ExitOK, r.stdout, r.stderr)
	}
	first, _, _ := strings.Cut(r.stdout, "Family")
	if !strings.Contains(first, "planned probes: graded on what was reached") || !strings.Contains(first, "cut by the budget during") ||
		strings.Contains(first, "Grade N/A") || strings.Contains(first, "interrupted") {
		t.Errorf("the first screen does not grade the scan and say the budget cut it:\n%s", first)
	}
	var rep struct {
		Score    struct{ Grade string }
		Coverage struct{ Interrupted string }
		Stats    struct {
			Interrupted bool
			BudgetCut   []string
		}
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Score.Grade == "N/A" || rep.Coverage.Interrupted != "" || rep.Stats.Interrupted || !slices.Contains(rep.Stats.BudgetCut, "probes") {
		t.Errorf("JSON: grade %q, coverage.interrupted %q, stats.interrupted %v, budgetCut %q", rep.Score.Grade, rep.Coverage.Interrupted, rep.Stats.Interrupted, rep.Stats.BudgetCut)
	}
	if r := run(t, "scan", "--budget", "4s", "--timeout", "1m", "--fail-on", "none", "--min-coverage", "100", url); r.code != ExitGateFailed ||
		!strings.Contains(r.stdout, "is below the minimum 100%") {
		t.Errorf("--min-coverage 100: exit %d, want %d with the coverage reason\nstdout: %s", r.code, ExitGateFailed, r.stdout)
	}
}

// The first SIGINT or SIGTERM cancels the scan with the signal as its
// cause; the second says to stop waiting.
func TestSecondSignalStopsWaiting(t *testing.T) {
	ctx, again, stop := onSignals(context.Background())
	defer stop()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first signal did not cancel the scan")
	}
	if got := context.Cause(ctx).Error(); got != "interrupted by SIGTERM" {
		t.Errorf("cause %q", got)
	}
	select {
	case <-again:
		t.Fatal("one signal was taken for two")
	case <-time.After(100 * time.Millisecond):
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-again:
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal was not seen")
	}
}

// expiredToken answers every request 401 with the challenge of an expired
// access token (RFC 6750 §3), whether or not credentials came.
func expiredToken() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="api", error="invalid_token", error_description="The access token expired"`)
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"title": "Unauthorized", "status": 401}`))
	})
}

// Credentials the scan sent and the server refused are named as such, with
// the server's reason; without credentials sent, the advice is to pass some.
func TestRefusedCredentialsAreNamed(t *testing.T) {
	url := serveHandler(t, expiredToken())
	const refused = `the server refused the credentials sent (Bearer error="invalid_token": "The access token expired"); renew them`
	path := filepath.Join(t.TempDir(), "r.json")
	r := run(t, "scan", "--no-openapi-discovery", "-H", "Authorization: Bearer expired-token-123", "-o", "json="+path, url)
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, ExitIncomplete, r.stdout, r.stderr)
	}
	first, _, _ := strings.Cut(r.stdout, "Family")
	if !strings.Contains(strings.Join(strings.Fields(first), " "), "Cause: 1 of 1 pages answered 401 or 403: "+refused) || strings.Contains(first, "pass them with -H") {
		t.Errorf("the first screen does not say the credentials were refused:\n%s", first)
	}
	var rep struct{ Coverage struct{ Cause string } }
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &rep); err != nil || !strings.Contains(rep.Coverage.Cause, refused) {
		t.Errorf("JSON coverage.cause %q (%v)", rep.Coverage.Cause, err)
	}
	if strings.Contains(r.stdout+r.stderr+string(b), "expired-token-123") {
		t.Error("the credential is in an output")
	}

	r = run(t, "scan", "--no-openapi-discovery", url)
	if first, _, _ := strings.Cut(r.stdout, "Family"); !strings.Contains(first, "the API needs credentials; pass them with -H") || strings.Contains(first, "refused") {
		t.Errorf("without credentials, the advice is not to pass some:\n%s", r.stdout)
	}
}
