// Package sample builds the fixed report that the reporters' golden tests
// render, so every format is checked against the same scan.
package sample

import (
	"fmt"
	"net/http"
	"time"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/score"
)

const docs = "https://github.com/agentready/agentready/blob/main/docs/checks.md#"

func rule(id, family, title string, sev finding.Severity, refs ...finding.SpecRef) finding.RuleInfo {
	return finding.RuleInfo{
		ID: id, Family: family, Title: title, Severity: sev, SpecRefs: refs,
		Help: "Why " + id + " matters, and how to fix it.", DocsURL: docs + id,
	}
}

var (
	rfc9110HEAD = finding.SpecRef{Doc: "RFC 9110", Section: "9.3.2", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-9.3.2", Level: "SHOULD"}
	rfc9110CL   = finding.SpecRef{Doc: "RFC 9110", Section: "8.6", URL: "https://www.rfc-editor.org/rfc/rfc9110#section-8.6", Level: "MUST"}
	rfc9457     = finding.SpecRef{Doc: "RFC 9457", Section: "3", URL: "https://www.rfc-editor.org/rfc/rfc9457#section-3", Level: "SHOULD"}
)

// families is the order the scan's families are graded in, as the checks'
// report order gives it.
var families = []string{"negotiation", "problem-json", "mcp"}

// Report returns a scan of two graded families (negotiation and
// problem-json) and one that is not present (mcp), with one check firing on
// five URLs, a skipped and an errored check, sampling, the coverage of a
// document half reached, notes and a gate.
func Report() *finding.Report {
	rules := []finding.RuleInfo{
		rule("negotiation-head-content-length", "negotiation", "HEAD Content-Length differs from GET", finding.SeverityError, rfc9110CL, rfc9110HEAD),
		rule("negotiation-json-default", "negotiation", "JSON is served without asking", finding.SeverityWarning, finding.SpecRef{Doc: "RFC 9110", Section: "12.5.1", Level: "MAY"}),
		rule("negotiation-not-acceptable", "negotiation", "Unsupported Accept gets 406", finding.SeverityWarning, finding.SpecRef{Doc: "RFC 9110", Section: "15.5.7", Level: "SHOULD"}),
		rule("problem-json-media-type", "problem-json", "Errors use application/problem+json", finding.SeverityWarning, rfc9457),
		rule("problem-json-status-member", "problem-json", "Problem status matches the response", finding.SeverityInfo, rfc9457),
		rule("problem-json-type-uri", "problem-json", "Problem type is a URI", finding.SeverityWarning, rfc9457),
		rule("mcp-tools-list", "mcp", "MCP server lists its tools", finding.SeverityError, finding.SpecRef{Doc: "MCP 2025-06-18", Section: "server/tools", Level: "MUST"}),
	}

	var findings []finding.Finding
	for i := 5; i >= 1; i-- {
		u := fmt.Sprintf("https://api.example.com/items/%d", i)
		findings = append(findings, finding.Finding{
			CheckID: "negotiation-head-content-length", Family: "negotiation", Severity: finding.SeverityError,
			Message: fmt.Sprintf("HEAD Content-Length is %d; expected %d as on GET", 10+i, 20+i),
			Subject: "Content-Length",
			Evidence: []finding.Evidence{{
				Purpose: "head", Method: "HEAD", URL: u, Status: 200,
				RequestHeaders:  http.Header{"Accept": {"application/json"}},
				ResponseHeaders: http.Header{"Content-Length": {fmt.Sprint(10 + i)}, "Content-Type": {"application/json"}},
				Header:          "Content-Length", Expected: fmt.Sprint(20 + i), Actual: fmt.Sprint(10 + i),
				Curl: "curl -sS -I -H 'Accept: application/json' '" + u + "'",
			}},
			SpecRefs:    rules[0].SpecRefs,
			Fingerprint: finding.Fingerprint("negotiation-head-content-length", "HEAD", "/items/{id}", "Content-Length"),
		})
	}
	findings = append(findings,
		finding.Finding{
			CheckID: "problem-json-media-type", Family: "problem-json", Severity: finding.SeverityWarning,
			Message: `Content-Type is "text/html"; expected "application/problem+json" for 4xx/5xx responses`,
			Evidence: []finding.Evidence{{
				Purpose: "not-found", Method: "GET", URL: "https://api.example.com/items/does-not-exist", Status: 404,
				Header: "Content-Type", Expected: "application/problem+json", Actual: "text/html",
				Excerpt: "<html><body><h1>Not Found</h1></body></html>",
				Curl:    "curl -sS -H 'Accept: application/json' 'https://api.example.com/items/does-not-exist'",
			}},
			SpecRefs: []finding.SpecRef{rfc9457},
			Location: &finding.SourceLocation{File: "openapi.yaml", Line: 42, Column: 9, Pointer: "/paths/~1items~1{id}/get/responses/404"},
		},
		finding.Finding{
			CheckID: "problem-json-status-member", Family: "problem-json", Severity: finding.SeverityInfo,
			Message: "problem status is 400 but the response status is 422",
			Evidence: []finding.Evidence{{
				Purpose: "invalid-body", Method: "POST", URL: "https://api.example.com/items", Status: 422,
				JSONPointer: "/status", Expected: "422", Actual: "400",
				Excerpt: `{"type":"about:blank","status":400,"title":"Bad Request"}`,
			}},
			SpecRefs: []finding.SpecRef{{Doc: "RFC 9457", Section: "3.1.2", Level: "SHOULD"}},
		},
		finding.Finding{
			CheckID: "negotiation-json-default", Family: "negotiation", Severity: finding.SeverityWarning,
			Message:  "a request without Accept got text/html; JSON clients that omit Accept get markup",
			Evidence: []finding.Evidence{{Method: "GET", URL: "https://api.example.com/", Status: 200, Header: "Content-Type", Actual: "text/html; charset=utf-8"}},
			SpecRefs: rules[1].SpecRefs, BaselineState: "new",
		},
	)

	results := []finding.CheckResult{
		{ID: "negotiation-head-content-length", Family: "negotiation", Status: finding.StatusFail, Findings: 5, Severity: finding.SeverityError},
		{ID: "negotiation-json-default", Family: "negotiation", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityWarning},
		{ID: "negotiation-not-acceptable", Family: "negotiation", Status: finding.StatusPass, Severity: finding.SeverityWarning},
		{ID: "problem-json-media-type", Family: "problem-json", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityWarning},
		{ID: "problem-json-status-member", Family: "problem-json", Status: finding.StatusFail, Findings: 1, Severity: finding.SeverityInfo},
		{ID: "problem-json-type-uri", Family: "problem-json", Status: finding.StatusError, Reason: "problem body is not a JSON object", Severity: finding.SeverityWarning},
		{ID: "mcp-tools-list", Family: "mcp", Status: finding.StatusSkip, Reason: "no MCP endpoint given (use --mcp URL)", Severity: finding.SeverityError},
	}

	half := 0.5
	cov := &finding.Coverage{
		Pages: map[string]int{"2xx": 9, "4xx": 3}, APIResources: 7, Surfaces: []string{finding.SurfaceOpenAPI},
		Operations: &finding.OperationCoverage{Declared: 4, Reached: 2, Items: []finding.OperationReach{
			{Method: "GET", Path: "/items", OperationID: "listItems", Reached: true, Status: 200, URL: "https://api.example.com/items"},
			{Method: "GET", Path: "/items/{id}", OperationID: "getItem", Reached: true, Status: 200, URL: "https://api.example.com/items/1"},
			{Method: "GET", Path: "/items/{id}/history", Reason: finding.ReasonPathParameter},
			{Method: "GET", Path: "/admin/stats", Reason: finding.ReasonCredentials, Status: 401, URL: "https://api.example.com/admin/stats"},
		}},
		Fraction:   &half,
		Throttling: &finding.Throttling{Requests: 43, Throttled: 5, StillThrottled: 1, CrawlGETs: 12, CrawlThrottled: 1},
	}
	started := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.ToolInfo{Name: "agentready", Version: "0.1.0", DocsURL: "https://github.com/agentready/agentready"},
		Target:        "https://api.example.com/",
		StartedAt:     started,
		FinishedAt:    started.Add(3250 * time.Millisecond),
		Score: score.Grade(score.Input{Families: families, Rules: rules, Results: results, Findings: findings,
			Needs: map[string]string{"mcp": finding.SurfaceMCP}, Coverage: cov}),
		Coverage: cov,
		Rules:    rules,
		Checks:   results,
		Findings: findings,
		Stats: finding.Stats{
			Pages: 12, Requests: 48, Probes: 31, DurationMS: 3250,
			Sampling: []finding.ShapeSample{{Shape: "/items/{id}", Seen: 120, Sampled: 5}, {Shape: "/", Seen: 1, Sampled: 1}},
			Skipped:  map[string]int{"off-origin": 4, "robots.txt": 2},
			// Documentation addresses (RFC 5737, RFC 3849).
			Addresses: map[string][]string{"api.example.com": {"203.0.113.7", "2001:db8::7"}},
		},
		Notes: []string{"request budget of 50 reached; 7 planned probes were not sent"},
		Gate:  &finding.Gate{FailOn: finding.SeverityError, Passed: false, Reason: "1 check failed at error or above"},
	}
}
