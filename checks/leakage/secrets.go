package leakage

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// SecretExposed flags a credential of a well-known format (a live payment
// key, a cloud access key, a repository or chat token, a PEM private key,
// a signed JWT still unexpired) in anything the server answered: a body of
// any status, a header, an MCP tool's text, llms.txt, a Markdown twin.
// Unlike the family's other checks it needs no second identity: whoever
// reads the answer, an agent included, holds the key.
type SecretExposed struct{ family }

func (SecretExposed) Meta() checks.Meta {
	return checks.Meta{
		ID:       "leakage-secret-exposed",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyLeakage,
		Title:    "Responses carry no live credentials (API keys, tokens, private keys)",
		Severity: finding.SeverityError,
		Security: true,
		SpecRefs: []finding.SpecRef{
			{Doc: "OWASP API Security Top 10", Section: "API3:2023", Level: "advice", URL: "https://owasp.org/API-Security/editions/2023/en/0xa3-broken-object-property-level-authorization/"},
			{Doc: "CWE-200", Level: "advice", URL: "https://cwe.mitre.org/data/definitions/200.html"},
			{Doc: "agent-readiness guidance", Section: "Stateful business actions for agents", Level: "advice",
				URL: "https://github.com/agentready/agentready/blob/main/docs/identities.md#exposed-credentials"},
		},
		Help: `Whatever an API answers lands in an agent's context, its transcripts and
its logs: a Stripe live key in an order document, an AWS access key in a
debug header, a GitHub token in an MCP tool's description, a private key in
llms.txt or a Markdown twin. A model cannot be trusted to keep a secret it
has read, and neither can the logs. This check searches every recorded
answer (bodies of any status, header values, MCP messages, discovery
documents) for credentials of formats precise enough that a match is
almost never anything else: Stripe live secret and restricted keys, AWS
access key IDs, GitHub, GitLab, Slack, npm and SendGrid tokens, Slack
webhook URLs, Google, OpenAI and Anthropic API keys, PEM private keys, and
signed JWTs whose ` + "`exp`" + ` is after the scan's start (a replay of the recording
judges against the same time). The formats are a subset of gitleaks' rules.

A detected credential is not checked against its issuer: agentready never
sends it anywhere, so a revoked or fake key in the right format is reported
too. The recording and every report keep only a placeholder naming the
format, the key's fixed prefix (` + "`sk_live_`" + `, ` + "`AKIA`" + `) and its length, never the
key.

**How to fix:** remove the credential from the response (a payment key
belongs on the server, a webhook URL in its configuration), then revoke it
and issue a new one: it has been served to whoever asked.`,
	}
}

func (c SecretExposed) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	started := recordingStart(in)
	m := c.Meta()
	var out []finding.Finding
	reported := map[string]bool{}
	seen := map[*exchange.Exchange]bool{}
	expired := 0
	for _, rec := range in.Recordings() {
		if rec == nil {
			continue
		}
		for _, x := range rec.Exchanges {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if seen[x] || x.Response == nil {
				continue
			}
			seen[x] = true
			for _, e := range exposures(x) {
				if e.cred.Expires != 0 && (started == 0 || e.cred.Expires <= started) {
					// A token that had expired when the scan began opens
					// nothing; one whose expiry cannot be compared with the
					// scan's start is not judged, so that a replay agrees.
					expired++
					continue
				}
				where := exchange.PathShape(exchange.PathOf(x.Request.URL))
				key := e.cred.Rule + " " + x.Request.Method + " " + where
				if reported[key] {
					continue
				}
				reported[key] = true
				out = append(out, checks.New(m, key, e.message(x), checks.Evidence(x, nil, e.headers())))
			}
		}
	}
	if expired > 0 {
		in.Observe(m.ID, fmt.Sprintf("%d signed JWT(s) in responses had expired before the scan began, or the recording has no start time: not judged", expired))
	}
	return out, nil
}

// exposure is one credential a response carries, and where: in the body,
// or in the header named.
type exposure struct {
	cred   exchange.Credential
	header string
}

func (e exposure) message(x *exchange.Exchange) string {
	rule, _ := exchange.CredentialRuleByID(e.cred.Rule)
	where := "its body"
	if e.header != "" {
		where = "its " + e.header + " header"
	}
	return fmt.Sprintf("%s %s (%d) exposes a credential, %s (%s), in %s; whoever reads the response, an agent's context and logs included, holds it: remove it and revoke it",
		x.Request.Method, exchange.PathOf(x.Request.URL), x.Response.Status, rule.Name, e.cred, where)
}

// headers are the response headers the evidence shows: the one that
// carries the credential (as its placeholder), or Content-Type.
func (e exposure) headers() []string {
	if e.header != "" {
		return []string{e.header}
	}
	return []string{"Content-Type"}
}

// exposures lists the credentials in x's response, the headers' first in
// name order, then the body's.
func exposures(x *exchange.Exchange) []exposure {
	var out []exposure
	names := make([]string, 0, len(x.Response.Header))
	for name := range x.Response.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range x.Response.Header[name] {
			for _, c := range exchange.FindCredentials([]byte(v)) {
				out = append(out, exposure{cred: c, header: http.CanonicalHeaderKey(name)})
			}
		}
	}
	for _, c := range exchange.FindCredentials(x.Response.Body) {
		out = append(out, exposure{cred: c})
	}
	return out
}

// recordingStart is when the scan began, in Unix seconds: its first
// request's time, which the recording keeps, so that a replay compares a
// token's expiry with the same instant. 0 when no exchange has a time.
func recordingStart(in *checks.Input) int64 {
	var first int64
	for _, rec := range in.Recordings() {
		if rec == nil {
			continue
		}
		for _, x := range rec.Exchanges {
			if x.Started > 0 && (first == 0 || x.Started < first) {
				first = x.Started
			}
		}
	}
	return first / 1e9
}
