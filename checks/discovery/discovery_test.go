package discovery_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/discovery"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

const origin = "http://api.test"

type site map[string]*checkstest.Builder

func get(purpose, path string) *checkstest.Builder {
	return checkstest.Exchange(purpose, "GET", origin+path).BasedOn(origin + path)
}

func link(path string, status int) *checkstest.Builder {
	return checkstest.Exchange(discovery.PurposeLink, "HEAD", origin+path).BasedOn(origin + path).Status(status)
}

const card = `{"name":"Demo","description":"Orders","version":"1.0.0",
 "supportedInterfaces":[{"url":"http://api.test/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
 "capabilities":{},"defaultInputModes":["application/json"],"defaultOutputModes":["application/json"],
 "skills":[{"id":"listOrders","name":"List orders","description":"Find orders","tags":["orders"]}]}`

// conformant is a site where every discovery document is right.
func conformant() site {
	return site{
		"root": checkstest.Exchange(exchange.PurposeCrawl, "GET", origin+"/").Status(200).
			Header("Content-Type", "application/hal+json").
			Header("Link", `</openapi.json>; rel="service-desc", </docs>; rel="service-doc"`).Body(`{"_links":{"self":{"href":"/"}}}`),
		"robots": get(discovery.PurposeRobots, "/robots.txt").Status(200).Header("Content-Type", "text/plain").
			Body("User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /private\n\nSitemap: http://api.test/sitemap.xml\n"),
		"llms": get(purpose.LLMs, "/llms.txt").Status(200).Header("Content-Type", "text/markdown; charset=utf-8").
			Body("# Demo\n\n> Orders.\n\n## API\n\n- [listOrders](/orders): Find orders\n\n## Optional\n\n- [Docs](/docs)\n"),
		"link-orders":  link("/orders", 200),
		"link-docs":    link("/docs", 200),
		"link-openapi": link("/openapi.json", 200),
		"link-a2a":     link("/a2a", 405),
		"service-desc": get(discovery.PurposeServiceDesc, "/openapi.json").Status(200).Header("Content-Type", "application/json").Body(`{"openapi":"3.1.0"}`),
		"service-doc":  get(discovery.PurposeServiceDoc, "/docs").Status(200).Header("Content-Type", "text/html"),
		"catalog": get(discovery.PurposeCatalog, "/.well-known/api-catalog").Status(200).Header("Content-Type", "application/linkset+json").
			Body(`{"linkset":[{"anchor":"http://api.test/","service-desc":[{"href":"/openapi.json"}]}]}`),
		"catalog-head": checkstest.Exchange(discovery.PurposeCatalogHead, "HEAD", origin+"/.well-known/api-catalog").BasedOn(origin+"/.well-known/api-catalog").
			Status(200).Header("Link", `</.well-known/api-catalog>; rel="api-catalog"`),
		"card": get(purpose.AgentCard, "/.well-known/agent-card.json").Status(200).Header("Content-Type", "application/json").
			Header("Cache-Control", "max-age=3600").Header("ETag", `"c1"`).Body(card),
		"card-legacy": get(purpose.AgentCardLegacy, "/.well-known/agent.json").Status(404),
		"md": get(discovery.PurposeMarkdown, "/").ReqHeader("Accept", "text/markdown").Status(200).
			Header("Content-Type", "text/markdown; charset=utf-8").Header("Vary", "Accept").Body("# Demo\n\n[Orders](/orders)\n"),
		"md-html": get(discovery.PurposeMarkdownHTML, "/").ReqHeader("Accept", "text/html").Status(200).
			Header("Content-Type", "text/html; charset=utf-8").Header("Vary", "Accept").Body("<h1>Demo</h1>"),
		"sitemap": get(purpose.Sitemap, "/sitemap.xml").Status(200).Header("Content-Type", "application/xml").Body(urlset("/", "/orders", "/docs")),
		"llms-full": get(discovery.PurposeLLMsFull, "/llms-full.txt").Status(200).Header("Content-Type", "text/markdown; charset=utf-8").
			Body("# Demo\n\n## Orders\n\nRead [the docs](/docs).\n"),
		"web-bot-auth": get(discovery.PurposeWebBotAuth, "/.well-known/http-message-signatures-directory").Status(200).
			Header("Content-Type", "application/http-message-signatures-directory+json").
			Body(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"}]}`),
		"skills-index": get(purpose.SkillsIndex, "/.well-known/agent-skills/index.json").Status(200).Header("Content-Type", "application/json").
			Body(skillsIndex(skillMD)),
		"skill": get(purpose.Skill, "/.well-known/agent-skills/order-workflow/SKILL.md").Status(200).
			Header("Content-Type", "text/markdown; charset=utf-8").Body(skillMD),
		"sitemap-orders": get(discovery.PurposeSitemapEntry, "/orders").Status(200),
		"sitemap-docs":   get(discovery.PurposeSitemapEntry, "/docs").Status(200),
		"priced": crawl("/reports/monthly", 402).Header("Content-Type", "application/problem+json").
			Header("PAYMENT-REQUIRED", base64.StdEncoding.EncodeToString([]byte(paymentRequired))).Body(`{"title":"Payment Required","status":402}`),
		"prm": get(discovery.PurposeProtectedResource, "/.well-known/oauth-protected-resource").ReqHeader("Accept", "application/json").Status(200).
			Header("Content-Type", "application/json").Body(`{"resource":"http://api.test","authorization_servers":["http://api.test"],"scopes_supported":["orders"]}`),
		"as": get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server").ReqHeader("Accept", "application/json").Status(200).
			Header("Content-Type", "application/json").Body(`{"issuer":"http://api.test","token_endpoint":"http://api.test/token","grant_types_supported":["client_credentials"]}`),
	}
}

// paymentRequired is an x402 version 2 challenge for /reports/monthly.
const paymentRequired = `{"x402Version":2,"resource":{"url":"http://api.test/reports/monthly","mimeType":"application/json"},` +
	`"accepts":[{"scheme":"exact","network":"eip155:84532","amount":"10000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e",` +
	`"payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}]}`

// pricedWith replaces the priced operation's challenge header.
func pricedWith(s site, challenge string) {
	s["priced"].Build().Response.Header.Set("PAYMENT-REQUIRED", base64.StdEncoding.EncodeToString([]byte(challenge)))
}

const skillMD = "---\nname: order-workflow\ndescription: Find orders.\n---\n# Orders\n\nCall `GET /orders`.\n"

// skillsIndex lists one skill whose digest is that of body.
func skillsIndex(body string) string {
	sum := sha256.Sum256([]byte(body))
	return `{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[{"name":"order-workflow","type":"skill-md",` +
		`"description":"Find orders.","url":"/.well-known/agent-skills/order-workflow/SKILL.md","digest":"sha256:` + hex.EncodeToString(sum[:]) + `"}]}`
}

// urlset is a sitemap listing paths of the origin, or absolute URLs.
func urlset(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, l := range locs {
		if strings.HasPrefix(l, "/") {
			l = origin + l
		}
		b.WriteString("  <url><loc>" + l + "</loc></url>\n")
	}
	return b.String() + "</urlset>\n"
}

func crawl(path string, status int) *checkstest.Builder {
	return checkstest.Exchange(exchange.PurposeCrawl, "GET", origin+path).Status(status)
}

func (s site) input(withSpec bool) *checks.Input {
	names := make([]string, 0, len(s))
	for k := range s {
		names = append(names, k)
	}
	slices.Sort(names)
	var xs []*exchange.Exchange
	var samples []string
	for _, n := range names {
		x := s[n].Build()
		if n == "root" {
			x.Source = "start"
		}
		if strings.HasPrefix(n, "sample-") {
			samples = append(samples, x.Request.URL)
		}
		xs = append(xs, x)
	}
	in := checkstest.Input(origin+"/", samples, xs...)
	if withSpec {
		in.Spec = &spec.Document{Source: origin + "/openapi.json", Operations: []*spec.Operation{
			{Method: "GET", PathTemplate: "/orders", OperationID: "listOrders"},
			{Method: "POST", PathTemplate: "/orders/{id}/payment", OperationID: "payOrder"},
		}}
	}
	return in
}

func fired(t *testing.T, in *checks.Input) []string {
	t.Helper()
	var got []string
	for _, c := range discovery.All() {
		fs, _ := checkstest.Run(t, c, in)
		got = append(got, checkstest.IDs(fs)...)
	}
	return got
}

// siteCase is one change to the conformant site and the checks it then
// fires, in the order of All.
type siteCase struct {
	what   string
	mutate func(site)
	want   []string
}

// runSiteCases runs every check of the family on the conformant site as
// each case changes it. Each document's cases sit in the test file of the
// source file that judges it.
func runSiteCases(t *testing.T, tests []siteCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			s := conformant()
			tt.mutate(s)
			got := fired(t, s.input(false))
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func TestConformantSiteFiresNothing(t *testing.T) {
	runSiteCases(t, []siteCase{
		{"conformant", func(site) {}, nil},
	})
}

func TestSpecDrivenChecks(t *testing.T) {
	s := conformant()
	if got := fired(t, s.input(true)); len(got) != 0 {
		t.Errorf("conformant site with a spec fired %v", got)
	}
	s["robots"].Body("User-agent: *\nDisallow: /orders/\n")
	in := s.input(true)
	fs, _ := checkstest.Run(t, discovery.RobotsBlocksAdvertised{}, in)
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "/orders/0/payment") || !strings.Contains(fs[0].Message, "the OpenAPI document") {
		t.Errorf("findings %+v", fs)
	}
	s = conformant()
	s["root"].Build().Response.Header.Del("Link")
	fs, _ = checkstest.Run(t, discovery.ServiceDescMissing{}, s.input(true))
	if len(fs) != 1 {
		t.Errorf("service-desc-missing fired %d times", len(fs))
	}
	if _, reason := checkstest.Run(t, discovery.ServiceDescMissing{}, s.input(false)); reason == "" {
		t.Error("service-desc-missing judged a site without a spec")
	}
}
