package scan_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/leakage"
	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/fixtures/expect/expecttest"
	"github.com/agentready/agentready/fixtures/hostile"
	"github.com/agentready/agentready/fixtures/methodlog"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/report"
)

const userAuth = "Bearer " + demo.UserToken

func anonAndUser(auth string) []probe.Identity {
	return []probe.Identity{
		{Caller: exchange.Caller{Name: "anonymous"}},
		{Caller: exchange.Caller{Name: "user"}, Header: http.Header{"Authorization": {auth}}},
	}
}

// scanAs scans like the CLI does, the OpenAPI document discovered, so that
// the checks that map tools to operations are assessed.
func scanAs(t *testing.T, h http.Handler, ids []probe.Identity) *finding.Report {
	t.Helper()
	return scanIdentities(t, h, ids, true)
}

// scanIdentities scans as ids, finding the OpenAPI document through its
// service-desc link when discover is set, as the CLI does.
func scanIdentities(t *testing.T, h http.Handler, ids []probe.Identity, discover bool) *finding.Report {
	t.Helper()
	return scanShared(t, h, ids, discover, nil)
}

// scanShared is scanIdentities with shared headers, as -H sends them.
func scanShared(t *testing.T, h http.Handler, ids []probe.Identity, discover bool, shared http.Header) *finding.Report {
	t.Helper()
	return mustScan(t, h, scan.Options{Probe: probe.Config{Headers: shared, Spec: probe.SpecConfig{Discover: discover}}, Identities: probe.Describe(ids, shared)})
}

func checkStatus(rep *finding.Report, id string) finding.CheckResult {
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	return finding.CheckResult{}
}

func TestDemoAsTwoIdentitiesGradesAWithNoLeak(t *testing.T) {
	t.Parallel()
	rep := scanAs(t, demo.New(), anonAndUser(userAuth))
	if rep.Score.Grade != "A+" && rep.Score.Grade != "A" {
		t.Errorf("grade %s (%d), want A or better", rep.Score.Grade, rep.Score.Value)
	}
	for _, f := range rep.Findings {
		if f.Severity >= finding.SeverityWarning || f.Family == "leakage" {
			t.Errorf("demo has %s %s: %s", f.Severity, f.CheckID, f.Message)
		}
	}
	for _, c := range leakage.All() {
		if slices.Contains(activeChecks, c.Meta().ID) {
			continue // judged only with --active: TestActiveProbesAreAssessedOnEveryMode
		}
		if st := checkStatus(rep, c.Meta().ID); st.Status != finding.StatusPass {
			t.Errorf("%s: %s (%s), want pass: every leakage check is assessed on the demo", c.Meta().ID, st.Status, st.Reason)
		}
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "scanned as 2 identities") }) {
		t.Errorf("no note on the budget split: %v", rep.Notes)
	}
}

// TestOneIdentityLeavesLeakageNotAssessed: every leakage check compares
// callers but leakage-secret-exposed, which one identity judges.
func TestOneIdentityLeavesLeakageNotAssessed(t *testing.T) {
	t.Parallel()
	rep := shared(t, conformantScanned).rep
	for _, c := range leakage.All() {
		if _, anyCaller := c.(leakage.SecretExposed); anyCaller {
			if st := checkStatus(rep, c.Meta().ID); st.Status != finding.StatusPass {
				t.Errorf("%s: %s %q, want pass on the conformant demo", c.Meta().ID, st.Status, st.Reason)
			}
			continue
		}
		if st := checkStatus(rep, c.Meta().ID); st.Status != finding.StatusSkip || !strings.HasPrefix(st.Reason, "not assessed") {
			t.Errorf("%s: %s %q, want skip not assessed", c.Meta().ID, st.Status, st.Reason)
		}
	}
}

// A shared header (-H) is redacted in the recording like every --header
// value, and leaves an identity without credentials anonymous: the checks
// that need an anonymous caller still judge it.
func TestSharedHeaderKeepsAnonymousAnonymous(t *testing.T) {
	t.Parallel()
	for _, shared := range []http.Header{nil, {"X-Trace": {"1"}}} {
		rep := scanShared(t, demo.New(demo.DefectLeakMCPAdminTool), anonAndUser(userAuth), true, shared)
		if got, want := expecttest.Fired(rep), []string{"leakage-mcp-privileged-tool-anonymous"}; !slices.Equal(got, want) {
			st := checkStatus(rep, want[0])
			t.Errorf("with -H %v: fired %v (%s: %s %s), want %v", shared, got, want[0], st.Status, st.Reason, want)
		}
	}
}

// A credential echoed in a body is replaced, but the size received is what
// HEAD's Content-Length is compared with: scrubbing makes no finding.
func TestScrubbedEchoKeepsHeadLengthConsistent(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		body := fmt.Sprintf(`{"_links":{"self":{"href":"/"}},"caller":%q}`, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/hal+json")
		w.Header().Set("Cache-Control", "private")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method != http.MethodHead {
			io.WriteString(w, body)
		}
	})
	rep := scanShared(t, h, nil, false, http.Header{"Authorization": {"Bearer " + canary}})
	st := checkStatus(rep, "negotiation-head-content-length")
	if st.Status != finding.StatusPass {
		t.Errorf("negotiation-head-content-length: %s %q, want pass", st.Status, st.Reason)
	}
	assertNoSecret(t, rep, "s3cr3t")
}

const canary = "s3cr3t-agentready-canary"

// TestCredentialsNeverAppearInAnyReport scans with a recognizable secret in
// a standard and in a custom credential header and greps every format.
func TestCredentialsNeverAppearInAnyReport(t *testing.T) {
	t.Parallel()
	ids := []probe.Identity{
		{Caller: exchange.Caller{Name: "anonymous"}},
		{Caller: exchange.Caller{Name: "user"}, Header: http.Header{"Authorization": {"Bearer " + canary}}},
		{Caller: exchange.Caller{Name: "custom"}, Header: http.Header{"Authorization": {"Bearer " + canary}, "X-Tenant-Secret": {canary + "-custom"}}},
	}
	// The canary stands for the demo's user token, so that the views differ
	// and findings quote requests of every kind (the privileged identity's
	// in problem-json findings, the others' in leakage findings).
	// The server echoes the credentials it gets into debug pages, JSON
	// descriptions and headers, so that findings quote them back.
	app := demo.New(demo.DefectLeakCachePublic, demo.DefectProblemJavaTrace)
	h := hostile.EchoCredentials(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+canary {
			r.Header.Set("Authorization", userAuth)
		}
		app.ServeHTTP(w, r)
	}), "Authorization", "X-Tenant-Secret")
	rep := scanAs(t, h, ids)
	if len(rep.Findings) == 0 || !slices.ContainsFunc(rep.Findings, func(f finding.Finding) bool { return f.Family == "leakage" }) {
		t.Fatal("no leakage finding: the test would not exercise evidence rendering")
	}
	assertEchoQuoted(t, rep)
	var curls strings.Builder
	for _, f := range rep.Findings {
		for _, ev := range f.Evidence {
			curls.WriteString(ev.Curl + "\n")
		}
	}
	if !strings.Contains(curls.String(), "X-Tenant-Secret: REDACTED") || !strings.Contains(curls.String(), "Authorization: REDACTED") {
		t.Errorf("curl lines do not show the redacted credentials:\n%s", curls.String())
	}
	assertNoSecret(t, rep, "s3cr3t")
}

// assertEchoQuoted fails unless findings quote a body and a header in which
// the server echoed credentials: without them the test would not notice
// echoes reaching a report.
func assertEchoQuoted(t *testing.T, rep *finding.Report) {
	t.Helper()
	var body, header bool
	for _, f := range rep.Findings {
		for _, ev := range f.Evidence {
			body = body || strings.Contains(ev.Excerpt, "Authorization: "+exchange.Redacted)
			header = header || strings.Contains(ev.ResponseHeaders.Get("Content-Type"), "x-caller")
		}
	}
	if !body || !header {
		t.Errorf("a body echo quoted %v, a header echo quoted %v: the test would not notice a leak through them", body, header)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "the server echoed credentials the scan sent") }) {
		t.Errorf("no note on the echoes: %v", rep.Notes)
	}
}

// assertNoSecret renders rep in every format, verbose or not, and looks for
// secret.
func assertNoSecret(t *testing.T, rep *finding.Report, secret string) {
	t.Helper()
	for _, format := range report.Formats() {
		for _, verbose := range []bool{false, true} {
			r, err := report.New(format, report.Options{Verbose: verbose})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := r.Write(&buf, rep); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if buf.Len() == 0 {
				t.Errorf("%s: empty output", format)
			}
			if bytes.Contains(buf.Bytes(), []byte(secret)) {
				t.Errorf("%s (verbose %v) output contains the secret", format, verbose)
			}
		}
	}
}

func TestIdentityScanSendsOnlySafeMethods(t *testing.T) {
	t.Parallel()
	log, h := methodlog.Wrap(demo.New())
	scanAs(t, h, anonAndUser(userAuth))
	for _, req := range log.Requests() {
		switch req[:strings.IndexByte(req, ' ')] {
		case "GET", "HEAD", "OPTIONS":
		default:
			if req != "POST /mcp" {
				t.Errorf("scanner sent %s", req)
			}
		}
	}
	if len(log.Requests()) == 0 {
		t.Fatal("no request recorded")
	}
}

// TestActiveDefectsDisturbNoPassiveScan: the defects that only active
// probes show leave a passive scan, as one identity or as two, as clean as
// the conformant demo.
func TestActiveDefectsDisturbNoPassiveScan(t *testing.T) {
	for _, d := range demo.Defects() {
		if len(d.Scan().Allow) == 0 {
			continue
		}
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			for _, ids := range [][]probe.Identity{nil, anonAndUser(userAuth)} {
				if got := expecttest.Fired(scanIdentities(t, demo.New(d), ids, true)); len(got) != 0 {
					t.Errorf("as %d identities: fired %v", len(ids), got)
				}
			}
		})
	}
}

// judgedRefund reports, from a scan with the demo's OpenAPI document, what
// the checks that judge an operation's absence said about refundOrder, and
// how the surface matrix shows it.
func judgedRefund(t *testing.T, rep *finding.Report) (observed []string, row finding.SurfaceRow) {
	t.Helper()
	for _, id := range []string{"openapi-hal-rel-never-offered", "mcp-parity-missing-tool"} {
		c := checkStatus(rep, id)
		if c.Status != finding.StatusPass {
			t.Errorf("%s: %s %s", id, c.Status, c.Reason)
		}
		for _, o := range c.Observations {
			if strings.HasPrefix(o, "refundOrder not judged: ") {
				observed = append(observed, id)
			}
		}
	}
	if rep.Surface == nil {
		t.Fatal("no surface matrix")
	}
	for _, r := range rep.Surface.Rows {
		if r.Operation == "POST /orders/{id}/refund" {
			return observed, r
		}
	}
	t.Fatal("no refundOrder row in the surface matrix")
	return nil, row
}

func assertCleanDemo(t *testing.T, rep *finding.Report) {
	t.Helper()
	if rep.Score.Grade != "A+" && rep.Score.Grade != "A" {
		t.Errorf("grade %s (%d), want A or better", rep.Score.Grade, rep.Score.Value)
	}
	for _, f := range rep.Findings {
		if f.Severity >= finding.SeverityWarning || f.Family == "leakage" {
			t.Errorf("demo has %s %s: %s", f.Severity, f.CheckID, f.Message)
		}
	}
}

// TestDemoRefundIsNotJudgedForCallersWhoMayNotCallIt: refundOrder is
// admin-only, so a scan as anonymous, or as anonymous and user, rightly
// sees neither its relation nor its tool, and says so instead of
// reporting it.
func TestDemoRefundIsNotJudgedForCallersWhoMayNotCallIt(t *testing.T) {
	for name, ids := range map[string][]probe.Identity{
		"anonymous": nil,
		"anonymous and user": {
			{Caller: exchange.Caller{Name: "anonymous", Roles: []string{}}},
			{Caller: exchange.Caller{Name: "user", Roles: []string{"user"}}, Header: http.Header{"Authorization": {userAuth}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep := scanIdentities(t, demo.New(), ids, true)
			assertCleanDemo(t, rep)
			observed, row := judgedRefund(t, rep)
			if !slices.Equal(observed, []string{"openapi-hal-rel-never-offered", "mcp-parity-missing-tool"}) {
				t.Errorf("observations name refundOrder in %v", observed)
			}
			if row.NotForCaller == "" {
				t.Errorf("refund row %+v: not marked as not for this caller", row)
			}
			for col, p := range rep.Surface.Projections {
				if p.PerCaller && !rep.Surface.NotAssessedForCaller(row, col) {
					t.Errorf("refund row, %s: %v, want not assessed for this caller", p.Name, row.Names[col])
				}
			}
		})
	}
}

// TestDemoAsUserAndAdminGradesAWithNoLeak: an administrator is offered
// refunds that a user is not, and the demo keeps the two views apart.
func TestDemoAsUserAndAdminGradesAWithNoLeak(t *testing.T) {
	t.Parallel()
	rep := scanIdentities(t, demo.New(), []probe.Identity{
		{Caller: exchange.Caller{Name: "user", Roles: []string{"user"}}, Header: http.Header{"Authorization": {userAuth}}},
		{Caller: exchange.Caller{Name: "admin", Roles: []string{"admin"}}, Header: http.Header{"Authorization": {"Bearer " + demo.AdminToken}}},
	}, true)
	assertCleanDemo(t, rep)
	observed, row := judgedRefund(t, rep)
	if len(observed) != 0 || row.NotForCaller != "" {
		t.Errorf("refundOrder not judged for the admin: %v %q", observed, row.NotForCaller)
	}
	for col, p := range rep.Surface.Projections {
		if p.PerCaller && !slices.Contains(row.Names[col], map[string]string{"MCP tools": "refundOrder", "hypermedia": "refund"}[p.Name]) {
			t.Errorf("the admin's %s do not offer refunds: %v", p.Name, row.Names[col])
		}
	}
	for _, c := range leakage.All() {
		id := c.Meta().ID
		// Active probes need --active; the anonymous catalog needs an
		// identity without credentials.
		if slices.Contains(activeChecks, id) || id == "leakage-mcp-privileged-tool-anonymous" {
			continue
		}
		if st := checkStatus(rep, id); st.Status != finding.StatusPass {
			t.Errorf("%s: %s (%s), want pass", id, st.Status, st.Reason)
		}
	}
}
