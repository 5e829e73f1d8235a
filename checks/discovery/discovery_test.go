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

// typedServiceDesc gives the root's service-desc link a type hint, and
// records the target's answer to a request for it.
func typedServiceDesc(s site, hint string, status int, served string) {
	s["root"].Build().Response.Header.Set("Link", `</openapi.json>; rel="service-desc"; type="`+hint+`", </docs>; rel="service-doc"`)
	s["service-desc-typed"] = get(discovery.PurposeServiceDescTyped, "/openapi.json").ReqHeader("Accept", hint).
		Status(status).Header("Content-Type", served).Body(`{"openapi":"3.1.0"}`)
}

func (s site) input(withSpec bool) *checks.Input {
	names := make([]string, 0, len(s))
	for k := range s {
		names = append(names, k)
	}
	slices.Sort(names)
	var xs []*exchange.Exchange
	for _, n := range names {
		x := s[n].Build()
		if n == "root" {
			x.Source = "start"
		}
		xs = append(xs, x)
	}
	in := checkstest.Input(origin+"/", nil, xs...)
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

func TestDiscoveryChecks(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(site)
		want   []string
	}{
		{"conformant", func(site) {}, nil},
		{"robots 503", func(s site) { s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(503) }, []string{"discovery-robots-unreachable"}},
		{"robots 403", func(s site) { s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(403) }, []string{"discovery-robots-forbidden"}},
		{"robots 404 is fine", func(s site) { s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(404) }, nil},
		{"robots syntax", func(s site) { s["robots"].Body("Disallow: /x\nUser-agent: *\nDisalow /y\n") }, []string{"discovery-robots-syntax"}},
		{"robots as HTML is not parsed", func(s site) {
			s["robots"] = get(discovery.PurposeRobots, "/robots.txt").Status(200).Header("Content-Type", "text/html").Body("<html>")
		}, nil},
		{"robots as octet-stream", func(s site) {
			s["robots"].Build().Response.Header.Set("Content-Type", "application/octet-stream")
		}, []string{"discovery-robots-media-type"}},
		{"robots without Content-Type", func(s site) { s["robots"].Build().Response.Header.Del("Content-Type") }, []string{"discovery-robots-media-type"}},
		{"robots rules labelled HTML", func(s site) {
			s["robots"].Build().Response.Header.Set("Content-Type", "text/html; charset=utf-8")
		}, []string{"discovery-robots-media-type"}},
		{"robots text/plain with charset", func(s site) {
			s["robots"].Build().Response.Header.Set("Content-Type", "text/plain; charset=utf-8")
		}, nil},
		{"robots too large", func(s site) { s["robots"].Body("User-agent: *\nAllow: /\n" + strings.Repeat("# pad\n", 100<<10)) }, []string{"discovery-robots-size"}},
		{"relative sitemap", func(s site) { s["robots"].Body("User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n") }, []string{"discovery-robots-sitemap"}},
		{"robots blocks what llms.txt advertises", func(s site) { s["robots"].Body("User-agent: GPTBot\nDisallow: /orders\n") }, []string{"discovery-robots-blocks-advertised"}},
		{"sitemap 404", func(s site) { s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(404) }, []string{"discovery-sitemap-unreachable"}},
		{"unnamed sitemap 404 is no sitemap", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n")
			s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(404)
		}, nil},
		{"unnamed catch-all at /sitemap.xml is no sitemap", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n")
			s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(200).Header("Content-Type", "application/json").Body(`{"error":"x"}`)
		}, nil},
		{"unnamed sitemap is judged", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n")
			s["sitemap"].Body(strings.Replace(urlset("/", "/orders", "/docs"), "/docs", "/docs?a=1&b=2", 1))
		}, []string{"discovery-sitemap-format"}},
		{"named sitemap as HTML", func(s site) {
			s["sitemap"] = get(purpose.Sitemap, "/sitemap.xml").Status(200).Header("Content-Type", "text/html").Body("<html></html>")
		}, []string{"discovery-sitemap-format"}},
		{"sitemap without namespace", func(s site) {
			s["sitemap"].Body(strings.Replace(urlset("/", "/orders", "/docs"), ` xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"`, "", 1))
		}, []string{"discovery-sitemap-format"}},
		{"text sitemap", func(s site) {
			s["sitemap"].Body(origin+"/\n"+origin+"/orders\n"+origin+"/docs\n").Build().Response.Header.Set("Content-Type", "text/plain")
		}, nil},
		{"sitemap lists another host", func(s site) { s["sitemap"].Body(urlset("/", "/orders", "/docs", "https://elsewhere.test/")) }, []string{"discovery-sitemap-entries"}},
		{"sitemap lists a priced page", func(s site) {
			s["sitemap"].Body(urlset("/", "/orders", "/docs", "/reports/monthly"))
		}, nil},
		{"sitemap lists a page refused with a plain 402", func(s site) {
			s["sitemap"].Body(urlset("/", "/orders", "/docs", "/reports/monthly"))
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(`{"error":"card declined"}`)
		}, []string{"discovery-sitemap-entries"}},
		{"sitemap lists a dead page", func(s site) { s["sitemap-docs"] = get(discovery.PurposeSitemapEntry, "/docs").Status(404) }, []string{"discovery-sitemap-entries"}},
		{"sitemap entry read from the crawl", func(s site) {
			delete(s, "sitemap-orders")
			s["crawl-orders"] = crawl("/orders", 500)
		}, []string{"discovery-sitemap-entries"}},
		{"sitemap entry not checked is not judged", func(s site) { delete(s, "sitemap-docs") }, nil},
		{"sitemap misses a page llms.txt advertises", func(s site) { s["sitemap"].Body(urlset("/", "/orders")) }, []string{"discovery-sitemap-coverage"}},
		{"sitemap index", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\nSitemap: " + origin + "/sitemaps/index.xml\n")
			s["sitemap-index"] = get(purpose.Sitemap, "/sitemaps/index.xml").Status(200).Header("Content-Type", "text/xml").
				Body(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + origin + `/sitemaps/1.xml</loc></sitemap></sitemapindex>`)
			s["sitemap-1"] = get(purpose.Sitemap, "/sitemaps/1.xml").Status(200).Body(urlset("/", "/orders", "/docs"))
		}, nil},
		{"sitemap index child 404", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\nSitemap: " + origin + "/sitemaps/index.xml\n")
			s["sitemap-index"] = get(purpose.Sitemap, "/sitemaps/index.xml").Status(200).Header("Content-Type", "text/xml").
				Body(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + origin + `/sitemaps/1.xml</loc></sitemap></sitemapindex>`)
			s["sitemap-1"] = get(purpose.Sitemap, "/sitemaps/1.xml").Status(410)
		}, []string{"discovery-sitemap-unreachable"}},
		{"llms-full as octet-stream", func(s site) {
			s["llms-full"].Build().Response.Header.Set("Content-Type", "application/octet-stream")
		}, []string{"discovery-llms-full"}},
		{"llms-full as text/plain", func(s site) { s["llms-full"].Build().Response.Header.Set("Content-Type", "text/plain") }, nil},
		{"llms-full catch-all HTML nothing links to", func(s site) {
			s["llms-full"] = get(discovery.PurposeLLMsFull, "/llms-full.txt").Status(200).Header("Content-Type", "text/html").Body("<p>app</p>")
		}, nil},
		{"llms-full HTML llms.txt links to", func(s site) {
			s["llms-full"] = get(discovery.PurposeLLMsFull, "/llms-full.txt").Status(200).Header("Content-Type", "text/html").Body("<p>app</p>")
			s["llms"].Body("# Demo\n\n> Orders.\n\n## API\n\n- [listOrders](/orders): Find orders\n\n## Optional\n\n- [Docs](/docs)\n- [Full](/llms-full.txt)\n")
			s["link-full"] = link("/llms-full.txt", 200)
			s["sitemap"].Body(urlset("/", "/orders", "/docs", "/llms-full.txt"))
		}, []string{"discovery-llms-full"}},
		{"llms-full 404", func(s site) { s["llms-full"] = get(discovery.PurposeLLMsFull, "/llms-full.txt").Status(404) }, nil},
		{"llms-full dead link", func(s site) {
			s["llms-full"].Body("# Demo\n\n[the docs](/docs) and [the guide](/guide.md)\n")
			s["link-guide"] = link("/guide.md", 404)
		}, []string{"discovery-llms-full-dead-links"}},
		{"robots blocks the agent card's interface", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: ClaudeBot\nDisallow: /a2a\n")
		}, []string{"discovery-robots-blocks-advertised"}},
		{"content signal", func(s site) {
			s["robots"].Body("User-agent: *\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nAllow: /\n")
		}, nil},
		{"content signal before the first group", func(s site) {
			s["robots"].Body("Content-Signal: search=yes, ai-input=yes, ai-train=no\nUser-agent: *\nAllow: /\n")
		}, []string{"discovery-content-signal-placement"}},
		{"content signal after a group's rules", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\nSitemap: http://api.test/sitemap.xml\nContent-Signal: search=yes\n")
		}, nil},
		{"content signal misspelt", func(s site) {
			s["robots"].Body("User-agent: *\nContent-Signal: search=yes, ai_train=no\nAllow: /\n")
		}, []string{"discovery-content-signal-syntax"}},
		{"content signal grants what the group disallows", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nContent-Signal: search=yes, ai-train=no\nDisallow: /\n")
		}, []string{"discovery-robots-blocks-advertised", "discovery-content-signal-contradiction"}},
		{"content signal grants what the group partly allows", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nContent-Signal: search=yes\nDisallow: /\nAllow: /orders\n")
		}, []string{"discovery-robots-blocks-advertised"}},
		{"content signal refuses what the group disallows", func(s site) {
			s["robots"].Body("User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nContent-Signal: search=no, ai-train=no\nDisallow: /\n")
		}, []string{"discovery-robots-blocks-advertised"}},
		{"key directory as application/json", func(s site) {
			s["web-bot-auth"].Build().Response.Header.Set("Content-Type", "application/json")
		}, []string{"discovery-web-bot-auth-directory"}},
		{"key directory with the legacy media type", func(s site) {
			s["web-bot-auth"].Build().Response.Header.Set("Content-Type", "application/http-message-signatures-directory")
		}, []string{"discovery-web-bot-auth-directory"}},
		{"key directory with a wrong kid", func(s site) {
			s["web-bot-auth"].Body(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"bot-1"}]}`)
		}, []string{"discovery-web-bot-auth-directory"}},
		{"key directory not a JWKS", func(s site) { s["web-bot-auth"].Body(`{"directory":[]}`) }, []string{"discovery-web-bot-auth-directory"}},
		{"empty key directory declares nothing", func(s site) { s["web-bot-auth"].Body(`{"keys":[]}`) }, nil},
		{"no key directory", func(s site) {
			s["web-bot-auth"] = get(discovery.PurposeWebBotAuth, "/.well-known/http-message-signatures-directory").Status(404)
		}, nil},
		{"x402 challenge without payTo", func(s site) {
			pricedWith(s, strings.Replace(paymentRequired, `"payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C",`, "", 1))
		}, []string{"discovery-x402-challenge"}},
		{"x402 challenge of an unknown version", func(s site) {
			pricedWith(s, strings.Replace(paymentRequired, `"x402Version":2`, `"x402Version":402`, 1))
		}, []string{"discovery-x402-challenge"}},
		{"x402 challenge header not base64", func(s site) {
			s["priced"].Build().Response.Header.Set("PAYMENT-REQUIRED", paymentRequired)
		}, []string{"discovery-x402-challenge"}},
		{"x402 challenge naming another resource", func(s site) {
			pricedWith(s, strings.Replace(paymentRequired, "/reports/monthly", "/reports", 1))
		}, []string{"discovery-x402-challenge"}},
		{"x402 version 2 challenge in the body only", func(s site) {
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(paymentRequired)
		}, []string{"discovery-x402-challenge"}},
		{"x402 version 1 challenge in the body", func(s site) {
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(`{"x402Version":1,"accepts":[` +
				`{"scheme":"exact","network":"base-sepolia","maxAmountRequired":"10000","asset":"0xA","payTo":"0xB",` +
				`"resource":"http://api.test/reports/monthly","description":"Monthly report","maxTimeoutSeconds":60}]}`)
		}, nil},
		{"a 402 of another payment scheme is not judged", func(s site) {
			s["priced"] = crawl("/reports/monthly", 402).Header("Content-Type", "application/json").Body(`{"error":{"code":"card_declined"}}`)
		}, nil},
		{"skills index as text/plain", func(s site) {
			s["skills-index"].Build().Response.Header.Set("Content-Type", "text/plain")
		}, []string{"discovery-skills-index"}},
		{"skills index without $schema", func(s site) {
			s["skills-index"].Body(strings.Replace(skillsIndex(skillMD), `"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json",`, "", 1))
		}, []string{"discovery-skills-index"}},
		{"skills index with a bare digest", func(s site) {
			s["skills-index"].Body(strings.Replace(skillsIndex(skillMD), `"sha256:`, `"`, 1))
		}, []string{"discovery-skills-index", "discovery-skills-artifacts"}},
		{"skill edited after the index", func(s site) { s["skill"].Body(skillMD + "\nMore.\n") }, []string{"discovery-skills-artifacts"}},
		{"skill renamed in its frontmatter", func(s site) {
			body := strings.Replace(skillMD, "name: order-workflow", "name: orders", 1)
			s["skill"].Body(body)
			s["skills-index"].Body(skillsIndex(body))
		}, []string{"discovery-skills-artifacts"}},
		{"skill 404", func(s site) {
			s["skill"] = get(purpose.Skill, "/.well-known/agent-skills/order-workflow/SKILL.md").Status(404)
		}, []string{"discovery-skills-artifacts"}},
		{"no skills index", func(s site) {
			s["skills-index"] = get(purpose.SkillsIndex, "/.well-known/agent-skills/index.json").Status(404)
		}, nil},
		{"llms without H1", func(s site) { s["llms"].Body("## API\n\n- [listOrders](/orders)\n") }, []string{"discovery-llms-title"}},
		{"llms item without link", func(s site) { s["llms"].Body("# Demo\n## API\n- listOrders: /orders\n") }, []string{"discovery-llms-list-items"}},
		{"llms Optional first", func(s site) { s["llms"].Body("# Demo\n## Optional\n- [Docs](/docs)\n## API\n- [o](/orders)\n") }, []string{"discovery-llms-optional-order"}},
		{"llms dead link", func(s site) { s["link-orders"] = link("/orders", 404) }, []string{"discovery-llms-dead-links", "discovery-markdown-dead-links"}},
		{"llms link unchecked is not judged", func(s site) { delete(s, "link-docs") }, nil},
		{"llms as HTML catch-all", func(s site) {
			s["llms"] = get(purpose.LLMs, "/llms.txt").Status(200).Header("Content-Type", "text/html").Body("<p>app</p>")
		}, nil},
		{"service-desc 404", func(s site) { s["service-desc"] = get(discovery.PurposeServiceDesc, "/openapi.json").Status(404) }, []string{"discovery-service-desc"}},
		{"service-desc not OpenAPI", func(s site) { s["service-desc"].Body(`{"swaggerish":true}`) }, []string{"discovery-service-desc"}},
		{"service-desc YAML", func(s site) { s["service-desc"].Body("# c\nopenapi: 3.1.0\ninfo: {}\n") }, nil},
		{"service-desc hint matches", func(s site) { typedServiceDesc(s, "application/openapi+json", 200, "application/json") }, nil},
		{"service-desc hint says JSON, target serves YAML", func(s site) {
			typedServiceDesc(s, "application/openapi+json", 200, "application/yaml")
		}, []string{"discovery-service-desc-type"}},
		{"service-desc hint says YAML, target refuses it", func(s site) {
			typedServiceDesc(s, "application/openapi+yaml", 406, "application/problem+json")
		}, []string{"discovery-service-desc-type"}},
		{"service-desc hint says YAML, target serves it", func(s site) {
			typedServiceDesc(s, "application/openapi+yaml", 200, "application/yaml")
		}, nil},
		{"service-desc hint on a target that is no OpenAPI document", func(s site) {
			typedServiceDesc(s, "application/openapi+json", 200, "text/html")
			s["service-desc"].Body("<p>").Build().Response.Header.Set("Content-Type", "text/html")
		}, []string{"discovery-service-desc"}},
		{"Link target 404", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 404)
		}, []string{"discovery-link-header-dead-links"}},
		{"Link target 410", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 410)
		}, []string{"discovery-link-header-dead-links"}},
		{"Link target answers", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 200)
		}, nil},
		{"Link target of an extension relation may be an action", func(s site) {
			s["root"].Header("Link", `</orders/1/payment>; rel="https://rels.example/pay"`)
			s["crawl-pay"] = crawl("/orders/1/payment", 404)
		}, nil},
		{"Link target 401 is there", func(s site) {
			s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
			s["crawl-schema"] = crawl("/schemas/order", 401).Header("WWW-Authenticate", `Bearer realm="api"`)
		}, nil},
		{"401 without a challenge", func(s site) {
			s["crawl-schema"] = crawl("/schemas/order", 401)
		}, []string{"discovery-auth-challenge"}},
		{"resource metadata naming another resource", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test/api","authorization_servers":["http://api.test"]}`)
		}, []string{"discovery-protected-resource"}},
		{"resource metadata served as text", func(s site) {
			s["prm"].Build().Response.Header.Set("Content-Type", "text/plain")
		}, []string{"discovery-protected-resource"}},
		{"resource metadata without resource", func(s site) { s["prm"].Body(`{"authorization_servers":["http://api.test"]}`) }, []string{"discovery-protected-resource"}},
		{"HTML catch-all is no resource metadata", func(s site) {
			s["prm"] = get(discovery.PurposeProtectedResource, "/.well-known/oauth-protected-resource").Status(200).Header("Content-Type", "text/html").Body("<html>")
		}, nil},
		{"no authorization metadata at all", func(s site) {
			s["prm"] = get(discovery.PurposeProtectedResource, "/.well-known/oauth-protected-resource").Status(404)
			s["as"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server").Status(404)
		}, nil},
		{"root issuer with its slash", func(s site) { s["as"].Body(`{"issuer":"http://api.test/","token_endpoint":"http://api.test/token"}`) }, nil},
		{"authorization server of another issuer", func(s site) {
			s["as"].Body(`{"issuer":"https://login.example","token_endpoint":"https://login.example/token"}`)
		}, []string{"discovery-authorization-server"}},
		{"listed tenant issuer with a trailing slash", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["http://api.test/tenant1"]}`)
			s["as-tenant"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server/tenant1").Status(200).
				Header("Content-Type", "application/json").Body(`{"issuer":"http://api.test/tenant1/","token_endpoint":"http://api.test/token"}`)
		}, []string{"discovery-authorization-server"}},
		{"listed tenant issuer in its OpenID configuration", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["http://api.test/tenant1"]}`)
			s["as-tenant"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server/tenant1").Status(404)
			s["oidc-tenant"] = get(discovery.PurposeOpenID, "/.well-known/openid-configuration/tenant1").Status(200).
				Header("Content-Type", "application/json").Body(`{"issuer":"http://api.test/tenant1","token_endpoint":"http://api.test/token"}`)
		}, nil},
		{"listed issuer without metadata", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["http://api.test/tenant1"]}`)
			s["as-tenant"] = get(discovery.PurposeAuthServer, "/.well-known/oauth-authorization-server/tenant1").Status(404)
			s["oidc-tenant"] = get(discovery.PurposeOpenID, "/.well-known/openid-configuration/tenant1").Status(404)
		}, []string{"discovery-authorization-server"}},
		{"listed issuer on another origin", func(s site) {
			s["prm"].Body(`{"resource":"http://api.test","authorization_servers":["https://login.example"]}`)
		}, nil},
		{"dead service-doc is judged by its own check only", func(s site) {
			s["service-doc"] = get(discovery.PurposeServiceDoc, "/docs").Status(404)
			s["crawl-docs"] = crawl("/docs", 404)
		}, []string{"discovery-service-links"}},
		{"service-doc 410", func(s site) { s["service-doc"] = get(discovery.PurposeServiceDoc, "/docs").Status(410) }, []string{"discovery-service-links"}},
		{"catalog HEAD without Link", func(s site) {
			s["catalog-head"] = checkstest.Exchange(discovery.PurposeCatalogHead, "HEAD", origin+"/.well-known/api-catalog").BasedOn(origin + "/.well-known/api-catalog").Status(200)
		}, []string{"discovery-api-catalog-head"}},
		{"catalog as plain JSON", func(s site) {
			s["catalog"].Header("Content-Type", "x").Build().Response.Header.Set("Content-Type", "application/json")
		}, []string{"discovery-api-catalog-linkset"}},
		{"catalog target without href", func(s site) { s["catalog"].Body(`{"linkset":[{"item":[{"type":"x"}]}]}`) }, []string{"discovery-api-catalog-linkset"}},
		{"catalog dead service-desc", func(s site) { s["link-openapi"] = link("/openapi.json", 404) }, []string{"discovery-api-catalog-links"}},
		{"no catalog", func(s site) {
			s["catalog"] = get(discovery.PurposeCatalog, "/.well-known/api-catalog").Status(404)
			delete(s, "catalog-head")
		}, nil},
		{"card missing skills", func(s site) { s["card"].Body(strings.Replace(card, `"skills"`, `"skillz"`, 1)) }, []string{"discovery-agent-card-fields"}},
		{"card pre-1.0", func(s site) {
			s["card"].Body(`{"name":"x","url":"http://api.test/a2a","preferredTransport":"JSONRPC"}`)
		}, []string{"discovery-agent-card-fields"}},
		{"skill without tags", func(s site) { s["card"].Body(strings.Replace(card, `"tags":["orders"]`, `"tag":"orders"`, 1)) }, []string{"discovery-agent-card-skills"}},
		{"interface 404", func(s site) { s["link-a2a"] = link("/a2a", 404) }, []string{"discovery-agent-card-interfaces"}},
		{"card without caching", func(s site) {
			s["card"] = get(purpose.AgentCard, "/.well-known/agent-card.json").Status(200).Header("Content-Type", "application/json").Body(card)
		}, []string{"discovery-agent-card-caching"}},
		{"legacy card only", func(s site) {
			s["card-legacy"] = get(purpose.AgentCardLegacy, "/.well-known/agent.json").Status(200).Header("Content-Type", "application/json").
				Header("Cache-Control", "max-age=60").Header("ETag", `"x"`).Body(card)
			s["card"] = get(purpose.AgentCard, "/.well-known/agent-card.json").Status(404)
		}, []string{"discovery-agent-card-legacy"}},
		{"markdown without charset", func(s site) { s["md"].Build().Response.Header.Set("Content-Type", "text/markdown") }, []string{"discovery-markdown-charset"}},
		{"markdown without Vary", func(s site) { s["md"].Build().Response.Header.Del("Vary") }, []string{"discovery-markdown-vary"}},
		{"HTML without Vary", func(s site) { s["md-html"].Build().Response.Header.Del("Vary") }, []string{"discovery-markdown-vary"}},
		{"HTML answer is no twin", func(s site) {
			s["md"] = get(discovery.PurposeMarkdown, "/").ReqHeader("Accept", "text/markdown").Status(200).Header("Content-Type", "text/html").Body("<p>")
		}, []string{"discovery-markdown-twin"}},
		{"sibling .md is a twin", func(s site) {
			s["md"] = get(discovery.PurposeMarkdown, "/").ReqHeader("Accept", "text/markdown").Status(406)
			s["sibling"] = checkstest.Exchange(discovery.PurposeMarkdownSibling, "GET", origin+"/index.html.md").BasedOn(origin+"/").
				Status(200).Header("Content-Type", "text/markdown; charset=utf-8").Body("# Demo\n")
		}, nil},
	}
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

func TestAICrawlerGroupsAreFacts(t *testing.T) {
	in := conformant().input(false)
	fs, _ := checkstest.Run(t, discovery.RobotsSyntax{}, in)
	facts := in.Observations("discovery-robots-syntax")
	if len(fs) != 0 || len(facts) != 1 || !strings.Contains(facts[0], "GPTBot") {
		t.Errorf("findings %v, facts %v", fs, facts)
	}
}

func TestLinkHeaderDeadLinkIsReportedOnceWithBothExchanges(t *testing.T) {
	s := conformant()
	s["root"].Header("Link", `</schemas/order>; rel="describedby"`)
	// Recorded before the root: the first source in recording order is named.
	s["crawl-orders"] = crawl("/orders", 200).Header("Link", `<http://API.test:80/schemas/order#x>; rel="describedby"`)
	s["crawl-schema"] = crawl("/schemas/order", 404)
	fs, _ := checkstest.Run(t, discovery.LinkHeaderDeadLinks{}, s.input(false))
	if len(fs) != 1 {
		t.Fatalf("findings = %+v, want one", fs)
	}
	f := fs[0]
	if f.Subject != "describedby /schemas/order" || len(f.Evidence) != 2 ||
		f.Evidence[0].URL != origin+"/orders" || f.Evidence[1].URL != origin+"/schemas/order" || f.Evidence[1].Status != 404 {
		t.Errorf("finding = %+v", f)
	}
}

func TestX402Declared(t *testing.T) {
	for _, tt := range []struct {
		what      string
		responses map[string]spec.Response
		want      int
	}{
		{"402 declared", map[string]spec.Response{"200": {}, "402": {}, "4XX": {}}, 0},
		{"402 hidden in 4XX", map[string]spec.Response{"200": {}, "4XX": {}}, 1},
		{"402 hidden in default", map[string]spec.Response{"200": {}, "default": {}}, 1},
		// problem-json-undeclared-status reports this one.
		{"402 not covered", map[string]spec.Response{"200": {}}, 0},
	} {
		in := conformant().input(true)
		in.Spec.Operations = append(in.Spec.Operations, &spec.Operation{Method: "GET", PathTemplate: "/reports/{period}", OperationID: "getReport", Responses: tt.responses})
		fs, reason := checkstest.Run(t, discovery.X402Declared{}, in)
		if len(fs) != tt.want || reason != "" {
			t.Errorf("%s: findings %+v, skipped %q", tt.what, fs, reason)
		}
	}
	in := conformant().input(true)
	if fs, _ := checkstest.Run(t, discovery.X402Challenge{}, in); len(fs) != 0 || len(in.Observations("discovery-x402-challenge")) != 1 ||
		!strings.Contains(in.Observations("discovery-x402-challenge")[0], "x402 v2: exact 10000 on eip155:84532") {
		t.Errorf("findings %v, facts %v", fs, in.Observations("discovery-x402-challenge"))
	}
}

func TestWebBotAuthDirectoryTransport(t *testing.T) {
	const path = "/.well-known/http-message-signatures-directory"
	directory := func(origin string, status int, location string) *checks.Input {
		b := checkstest.Exchange(discovery.PurposeWebBotAuth, "GET", origin+path).BasedOn(origin + path).Status(status)
		if location != "" {
			b.Header("Location", location)
		} else {
			b.Header("Content-Type", "application/http-message-signatures-directory+json").Body(`{"keys":[]}`)
		}
		return checkstest.Input(origin+"/", nil, b.Build())
	}
	for _, tt := range []struct {
		what string
		in   *checks.Input
		want string // "" when nothing is reported
	}{
		{"https origin redirecting to plain HTTP", directory("https://api.test", 301, "http://api.test"+path), "over HTTPS"},
		{"https origin redirecting to another host", directory("https://api.test", 302, "https://keys.example"+path), "do not follow redirects"},
		{"https origin redirecting to a login page", directory("https://api.test", 302, "/login"), ""},
		{"http origin redirecting to HTTPS", directory("http://api.test", 301, "https://api.test"+path), ""},
		{"https origin serving it", directory("https://api.test", 200, ""), ""},
	} {
		fs, _ := checkstest.Run(t, discovery.WebBotAuthDirectory{}, tt.in)
		switch {
		case tt.want == "" && len(fs) != 0, tt.want != "" && (len(fs) != 1 || !strings.Contains(fs[0].Message, tt.want)):
			t.Errorf("%s: findings %+v, want %q", tt.what, fs, tt.want)
		}
	}
	in := directory("http://api.test", 200, "")
	checkstest.Run(t, discovery.WebBotAuthDirectory{}, in)
	if facts := in.Observations("discovery-web-bot-auth-directory"); len(facts) != 2 || !strings.Contains(facts[1], "plain HTTP") {
		t.Errorf("facts %v", facts)
	}
}

// TestRobotsNotKnownIsNotAbsent: a robots.txt still throttled after
// retrying, or answering a server error, is not "no file": every check of
// it is not assessed (the 5xx itself is still a finding), while a 404 is a
// site without one.
func TestRobotsNotKnownIsNotAbsent(t *testing.T) {
	for _, tt := range []struct {
		name   string
		robots *checkstest.Builder
		reason string
		fires  []string
	}{
		{"429", get(discovery.PurposeRobots, "/robots.txt").Status(429), "not assessed: /robots.txt answered 429 and stayed throttled after retrying", nil},
		{"503 with Retry-After", get(discovery.PurposeRobots, "/robots.txt").Status(503).Header("Retry-After", "120"),
			"not assessed: /robots.txt answered 503 and stayed throttled after retrying", []string{"discovery-robots-unreachable"}},
		{"500", get(discovery.PurposeRobots, "/robots.txt").Status(500), "not assessed: /robots.txt answered 500, a server error", []string{"discovery-robots-unreachable"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := conformant()
			s["robots"] = tt.robots
			in := s.input(false)
			var got []string
			for _, c := range discovery.All() {
				id := c.Meta().ID
				if !strings.Contains(id, "robots") && !strings.Contains(id, "content-signal") {
					continue
				}
				fs, reason := checkstest.Run(t, c, in)
				got = append(got, checkstest.IDs(fs)...)
				if len(fs) == 0 && !strings.HasPrefix(reason, tt.reason) {
					t.Errorf("%s: skip reason %q, want it to begin %q", id, reason, tt.reason)
				}
			}
			if !slices.Equal(got, tt.fires) {
				t.Errorf("fired %v, want %v", got, tt.fires)
			}
		})
	}
}
