package sarif_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/golden"
	"github.com/agentready/agentready/report/internal/sample"
	"github.com/agentready/agentready/report/internal/sarifcheck"
	"github.com/agentready/agentready/report/sarif"
)

func render(t *testing.T, opts sarif.Options, r *finding.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := sarif.New(opts).Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func decode(t *testing.T, b []byte) *sarif.Log {
	t.Helper()
	var log sarif.Log
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	return &log
}

func TestGoldenSample(t *testing.T) {
	golden.Check(t, golden.Path("sample", "report.sarif"), render(t, sarif.Options{}, sample.Report()))
}

// cases are the reports every validity test renders.
func cases() map[string]*finding.Report {
	located := sample.Report()
	located.Findings[0].Location = &finding.SourceLocation{File: "api/openapi.yaml", Line: 12, Column: 5, EndLine: 14, EndColumn: 9}
	return map[string]*finding.Report{
		"sample":    sample.Report(),
		"located":   located,
		"hostile":   sample.Hostile(),
		"empty":     {SchemaVersion: finding.SchemaVersion, Score: finding.Score{Grade: "N/A"}},
		"truncated": many(40),
	}
}

func TestValidatesAgainstOfficialSchema(t *testing.T) {
	for name, r := range cases() {
		t.Run(name, func(t *testing.T) {
			sarifcheck.Schema(t, render(t, sarif.Options{MaxResults: 25}, r))
		})
	}
}

func TestSchemaRejectsInvalidSARIF(t *testing.T) {
	// The schema check itself must be able to fail.
	sch, err := sarifcheck.CompileSchema()
	if err != nil {
		t.Fatal(err)
	}
	bad := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"level":"fatal"}]}]}`
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if sch.Validate(inst) == nil {
		t.Fatal("schema accepted an invalid level")
	}
}

func TestGitHubIngestionRules(t *testing.T) {
	for name, r := range cases() {
		t.Run(name, func(t *testing.T) {
			sarifcheck.GitHubRules(t, render(t, sarif.Options{MaxResults: 25}, r))
		})
	}
}

func TestOneRulePerCheckThatRan(t *testing.T) {
	r := sample.Report()
	log := decode(t, render(t, sarif.Options{}, r))
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != len(r.Checks) {
		t.Fatalf("%d rules for %d checks", len(rules), len(r.Checks))
	}
	byID := map[string]sarif.Rule{}
	for _, rule := range rules {
		byID[rule.ID] = rule
	}
	head := byID["negotiation-head-content-length"]
	if head.Name != "NegotiationHeadContentLength" || head.DefaultConfiguration.Level != "error" ||
		head.HelpURI != r.Rules[0].DocsURL || head.Properties.Precision == "" ||
		head.Properties.Tags[0] != "negotiation" || !strings.Contains(head.Help.Markdown, "[RFC 9110 §8.6](https://www.rfc-editor.org/rfc/rfc9110#section-8.6) (MUST)") {
		t.Errorf("rule = %+v", head)
	}
	if head.Properties.SecuritySeverity != "" {
		t.Errorf("a non-security rule has security-severity %q", head.Properties.SecuritySeverity)
	}
	if lvl := byID["problem-json-status-member"].DefaultConfiguration.Level; lvl != "note" {
		t.Errorf("info check level %q, want note", lvl)
	}
}

func TestSecurityRules(t *testing.T) {
	r := sample.Report()
	r.Rules[0].Security = true
	var rule sarif.Rule
	for _, rl := range decode(t, render(t, sarif.Options{}, r)).Runs[0].Tool.Driver.Rules {
		if rl.ID == r.Rules[0].ID {
			rule = rl
		}
	}
	if rule.Properties.SecuritySeverity != "8.0" || !contains(rule.Properties.Tags, "security") {
		t.Errorf("security rule properties %+v", rule.Properties)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestResultsNameTheExchangeAndLocation(t *testing.T) {
	r := sample.Report()
	r.Findings[5].Location = &finding.SourceLocation{File: "./api/open api.yaml", Line: 42, Column: 9}
	log := decode(t, render(t, sarif.Options{}, r))
	var located, anchored *sarif.Result
	for i := range log.Runs[0].Results {
		res := &log.Runs[0].Results[i]
		switch res.RuleID {
		case "problem-json-media-type":
			located = res
		case "negotiation-head-content-length":
			if anchored == nil {
				anchored = res
			}
		}
	}
	if located == nil || anchored == nil {
		t.Fatal("results missing")
	}
	loc := located.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "api/open%20api.yaml" || loc.Region.StartLine != 42 || loc.Region.StartColumn != 9 {
		t.Errorf("located result at %+v", loc)
	}
	if !strings.Contains(located.Message.Text, "GET https://api.example.com/items/does-not-exist answered 404") {
		t.Errorf("message %q does not name the exchange", located.Message.Text)
	}
	if located.WebRequest == nil || located.WebRequest.Method != "GET" || located.WebResponse.StatusCode != 404 ||
		located.WebResponse.Body == nil || !strings.Contains(located.WebResponse.Body.Text, "Not Found") {
		t.Errorf("web request/response: %+v %+v", located.WebRequest, located.WebResponse)
	}

	// The sample has one located finding, so its file is the default anchor.
	aloc := anchored.Locations[0].PhysicalLocation
	if aloc.ArtifactLocation.URI != "api/open%20api.yaml" || aloc.Region.StartLine != 1 {
		t.Errorf("anchored result at %+v", aloc)
	}
	if !strings.Contains(anchored.Message.Text, "HEAD https://api.example.com/items/1 answered 200") ||
		!strings.Contains(anchored.Message.Text, "no place in the spec file") {
		t.Errorf("anchored message %q", anchored.Message.Text)
	}
	if anchored.Properties["anchored"] != true {
		t.Errorf("anchored result properties %v", anchored.Properties)
	}
}

func TestAnchor(t *testing.T) {
	noLocation := sample.Report()
	for i := range noLocation.Findings {
		noLocation.Findings[i].Location = nil
	}
	tests := []struct {
		name    string
		opts    sarif.Options
		want    string
		wantErr bool
	}{
		{"default without a spec", sarif.Options{}, "action.yml", false},
		{"configured", sarif.Options{Anchor: "specs/openapi.yaml"}, "specs/openapi.yaml", false},
		{"windows separators", sarif.Options{Anchor: `specs\openapi.yaml`}, "specs/openapi.yaml", filepath.Separator != '\\'},
		{"absolute inside the repository", sarif.Options{Anchor: "/repo/api/openapi.yaml", BaseDir: "/repo"}, "api/openapi.yaml", false},
		{"absolute outside the repository", sarif.Options{Anchor: "/elsewhere/openapi.yaml", BaseDir: "/repo"}, "", true},
		{"leaves the repository", sarif.Options{Anchor: "../openapi.yaml"}, "", true},
		{"a URL", sarif.Options{Anchor: "https://example.com/openapi.yaml"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := sarif.New(tt.opts).Write(&buf, noLocation)
			if tt.wantErr {
				if err == nil && tt.want == "" {
					t.Fatalf("anchor %q accepted", tt.opts.Anchor)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, res := range decode(t, buf.Bytes()).Runs[0].Results {
				if got := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; got != tt.want {
					t.Fatalf("anchored at %q, want %q", got, tt.want)
				}
			}
		})
	}
	if err := sarif.ValidAnchor("../x.yaml", ""); err == nil {
		t.Error("ValidAnchor accepted a path outside the repository")
	}
	if err := sarif.ValidAnchor("action.yml", ""); err != nil {
		t.Errorf("ValidAnchor(action.yml): %v", err)
	}
}

func TestSpecLocationOutsideRepositoryIsAnchored(t *testing.T) {
	r := sample.Report()
	r.Findings[5].Location = &finding.SourceLocation{File: "/tmp/other/openapi.yaml", Line: 7}
	log := decode(t, render(t, sarif.Options{BaseDir: "/repo"}, r))
	for _, res := range log.Runs[0].Results {
		if res.RuleID != "problem-json-media-type" {
			continue
		}
		if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "action.yml" {
			t.Errorf("anchored at %q", uri)
		}
		if !strings.Contains(res.Message.Text, "/tmp/other/openapi.yaml") {
			t.Errorf("message %q does not say where the spec location was", res.Message.Text)
		}
	}
}

func TestCategory(t *testing.T) {
	for cat, want := range map[string]string{"": "agentready/", "staging": "staging/", "live/preview/": "live/preview/"} {
		got := decode(t, render(t, sarif.Options{Category: cat}, sample.Report())).Runs[0].AutomationDetails.ID
		if got != want {
			t.Errorf("category %q: id %q, want %q", cat, got, want)
		}
	}
}

// many builds a report with n findings of mixed severity, info first, so that
// a cut without sorting would keep the wrong ones.
func many(n int) *finding.Report {
	r := sample.Report()
	r.Findings = nil
	sevs := []finding.Severity{finding.SeverityInfo, finding.SeverityWarning, finding.SeverityError}
	ids := []string{"problem-json-status-member", "problem-json-media-type", "negotiation-head-content-length"}
	for i := range n {
		k := i * 3 / n
		r.Findings = append(r.Findings, finding.Finding{
			CheckID: ids[k], Family: "x", Severity: sevs[k], Message: fmt.Sprintf("finding %d", i),
			Evidence:    []finding.Evidence{{Method: "GET", URL: fmt.Sprintf("https://api.example.com/%03d", i), Status: 200}},
			Fingerprint: fmt.Sprintf("fp%03d", i),
		})
	}
	return r
}

func TestResultsCutAtLimitMostSevereFirst(t *testing.T) {
	r := many(30)
	log := decode(t, render(t, sarif.Options{MaxResults: 12}, r))
	run := log.Runs[0]
	if len(run.Results) != 12 {
		t.Fatalf("%d results, want 12", len(run.Results))
	}
	for i, res := range run.Results {
		want := "error"
		if i >= 10 {
			want = "warning"
		}
		if res.Level != want {
			t.Errorf("result %d is %s, want %s", i, res.Level, want)
		}
	}
	if run.Properties["resultsTruncated"] != true || run.Properties["resultsTotal"] != float64(30) {
		t.Errorf("run properties %v do not record the cut", run.Properties)
	}
	notes := run.Invocations[0].Notifications
	if len(notes) == 0 || !strings.Contains(notes[len(notes)-1].Message.Text, "30 results exceed the limit of 12") {
		t.Errorf("notifications %+v do not explain the cut", notes)
	}
	if got := len(decode(t, render(t, sarif.Options{MaxResults: 12}, many(12))).Runs[0].Results); got != 12 {
		t.Errorf("12 findings under a limit of 12 gave %d results", got)
	}
}

func TestDefaultLimitIsGitHubs(t *testing.T) {
	// Build, not Write: encoding 25,000 results adds nothing to what is
	// tested and is slow under the race detector.
	log, err := sarif.New(sarif.Options{}).Build(many(sarif.MaxResults + 5))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(log.Runs[0].Results); got != sarif.MaxResults {
		t.Errorf("%d results, want %d", got, sarif.MaxResults)
	}
}

func TestFingerprintsSurvivePortAndLineChanges(t *testing.T) {
	a, b := sample.Report(), sample.Report()
	for i := range b.Findings {
		f := &b.Findings[i]
		for j := range f.Evidence {
			f.Evidence[j].URL = strings.Replace(f.Evidence[j].URL, "api.example.com", "api.example.com:8443", 1)
		}
		if f.Location != nil {
			f.Location.Line += 10
		}
	}
	ra, rb := decode(t, render(t, sarif.Options{}, a)).Runs[0].Results, decode(t, render(t, sarif.Options{}, b)).Runs[0].Results
	for i := range ra {
		fa, fb := ra[i].PartialFingerprints["primaryLocationLineHash"], rb[i].PartialFingerprints["primaryLocationLineHash"]
		if fa == "" || fa != fb {
			t.Errorf("result %d: fingerprint changed from %q to %q", i, fa, fb)
		}
	}
	// Findings of different checks never share a fingerprint, also when
	// the report carries none and it is derived from the evidence.
	for i := range a.Findings {
		a.Findings[i].Fingerprint = ""
	}
	seen := map[string]string{}
	for _, res := range decode(t, render(t, sarif.Options{}, a)).Runs[0].Results {
		fp := res.PartialFingerprints["primaryLocationLineHash"]
		if other, ok := seen[fp]; ok && other != res.RuleID {
			t.Errorf("%s and %s share fingerprint %s", other, res.RuleID, fp)
		}
		seen[fp] = res.RuleID
	}
}

func TestBaselineState(t *testing.T) {
	r := sample.Report()
	for i := range r.Findings {
		r.Findings[i].BaselineState = "existing"
	}
	r.Findings[0].BaselineState = "new"
	states := map[string]int{}
	for _, res := range decode(t, render(t, sarif.Options{}, r)).Runs[0].Results {
		states[res.BaselineState]++
	}
	if states["new"] != 1 || states["unchanged"] != len(r.Findings)-1 {
		t.Errorf("baseline states %v", states)
	}
}

// jsLink matches a Markdown link to javascript: whose brackets are not
// escaped.
var jsLink = regexp.MustCompile(`(^|[^\\])\]\(\s*<?javascript:`)

func TestHostileReportIsSafe(t *testing.T) {
	out := render(t, sarif.Options{}, sample.Hostile())
	if !utf8.Valid(out) {
		t.Error("output is not valid UTF-8")
	}
	for _, secret := range []string{"hunter2", "secret-token", "session=secret"} {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("credential %q leaked into the SARIF", secret)
		}
	}
	for _, raw := range []string{"<script>", "\x1b", "\u009b", "\u202e"} {
		if bytes.Contains(out, []byte(raw)) {
			t.Errorf("raw %q in output", raw)
		}
	}
	log := decode(t, out)
	for _, res := range log.Runs[0].Results {
		if n := len(res.Message.Text); n > 4000 {
			t.Errorf("message of %d bytes: the 100 KB payload was not bounded", n)
		}
		if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; strings.Contains(uri, "..") {
			t.Errorf("location %q escapes the repository", uri)
		}
	}
	for _, rule := range log.Runs[0].Tool.Driver.Rules {
		if strings.HasPrefix(rule.HelpURI, "javascript:") || jsLink.MatchString(rule.Help.Markdown) {
			t.Errorf("rule %s links to javascript:", rule.ID)
		}
	}
	if len(out) > 2<<20 {
		t.Errorf("hostile report gave %d bytes of SARIF", len(out))
	}
}

func TestNilReport(t *testing.T) {
	if err := sarif.New(sarif.Options{}).Write(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil report accepted")
	}
}

func TestDefaultAnchorIsTheOpenAPIFile(t *testing.T) {
	anchorOf := func(spec *finding.SpecInfo) string {
		r := sample.Report()
		for i := range r.Findings {
			r.Findings[i].Location = nil
		}
		r.Spec = spec
		return decode(t, render(t, sarif.Options{BaseDir: "/repo"}, r)).Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI
	}
	if got := anchorOf(&finding.SpecInfo{Source: "api/openapi.yaml"}); got != "api/openapi.yaml" {
		t.Errorf("spec file: anchored at %q", got)
	}
	if got := anchorOf(&finding.SpecInfo{Source: "/repo/specs/openapi.json"}); got != "specs/openapi.json" {
		t.Errorf("absolute spec file in the repository: anchored at %q", got)
	}
	if got := anchorOf(&finding.SpecInfo{Source: "https://api.example.com/openapi.json"}); got != "action.yml" {
		t.Errorf("spec fetched from the target: anchored at %q, want action.yml", got)
	}
	if got := anchorOf(nil); got != "action.yml" {
		t.Errorf("no spec: anchored at %q", got)
	}
}

// TestHouseRuleHelpIsLiteral: a house rule's help comes from a
// configuration or from a shard another job wrote; code scanning renders
// its Markdown in the repository, so nothing in it may fetch, link,
// mention or run.
func TestHouseRuleHelpIsLiteral(t *testing.T) {
	r := sample.Report()
	r.Rules = append(r.Rules, finding.RuleInfo{ID: "custom-no-x", Family: "custom", Title: "No x", Severity: finding.SeverityWarning,
		Help: "Keep x out.\n\n![x](http://evil/i.png) [link](http://evil) @team <img src=x> <http://evil/auto>"})
	var help sarif.Help
	for _, rule := range decode(t, render(t, sarif.Options{}, r)).Runs[0].Tool.Driver.Rules {
		if rule.ID == "custom-no-x" {
			help = rule.Help
		}
	}
	md := help.Markdown
	for _, live := range []string{"![x](", "[link](", "@team", "<img", "<http"} {
		if strings.Contains(md, live) {
			t.Errorf("house rule help keeps %q live:\n%s", live, md)
		}
	}
	if !strings.Contains(md, "Keep x out.\n\n") || !strings.Contains(md, `!\[x\](http://evil/i.png)`) || !strings.Contains(md, "@\u200bteam") {
		t.Errorf("house rule help lost its text or paragraphs:\n%s", md)
	}
}

// SARIF 2.1.0 §3.19.9: semanticVersion is a Semantic Versioning 2.0.0
// version or absent; the free-form version is copied (up to 100 bytes).
func TestSemanticVersionOnlyWhenValid(t *testing.T) {
	tests := []struct{ version, semantic string }{
		{"0.1.0", "0.1.0"},
		{"v1.2.3", "1.2.3"},
		{"1.2.3-rc.1", "1.2.3-rc.1"},
		{"0.0.0-SNAPSHOT-1b79576", "0.0.0-SNAPSHOT-1b79576"},
		{"0.0.0-SNAPSHOT-0123456", "0.0.0-SNAPSHOT-0123456"},
		{"v0.0.0-20260102030405-0123456789ab+dirty", "0.0.0-20260102030405-0123456789ab+dirty"},
		{"1.2.3+build.7", "1.2.3+build.7"},
		{"dev", ""},
		{"test", ""},
		{"", ""},
		{"1.2", ""},
		{"1.2.3garbage", ""},
		{"01.2.3", ""},
		{"1.2.3-01", ""}, // a numeric pre-release identifier has no leading zero
		{"1.2.3-", ""},
		{"1.2.3+", ""},
		{"1.2.3 ", ""},
		{"1.2.٣", ""}, // a digit, but not an ASCII one
		{"1.2.3-" + strings.Repeat("a", 100), ""},
	}
	for _, tt := range tests {
		r := sample.Report()
		r.Tool.Version = tt.version
		driver := decode(t, render(t, sarif.Options{}, r)).Runs[0].Tool.Driver
		if driver.SemanticVersion != tt.semantic {
			t.Errorf("version %q: semanticVersion %q, want %q", tt.version, driver.SemanticVersion, tt.semantic)
		}
		if tt.version != "" && len(tt.version) <= 100 && driver.Version != tt.version {
			t.Errorf("version %q: the free-form version is %q", tt.version, driver.Version)
		}
	}
}
