package negotiation_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/checkstest"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/checks/internal/purpose"
	"github.com/agentready/agentready/checks/negotiation"
	"github.com/agentready/agentready/internal/exchange"
)

const u = "http://api.test/orders/1"

// resp describes one probe's answer.
type resp struct {
	status int
	ctype  string
	hdr    map[string]string
	body   string
}

// conformant answers of a resource with HAL and JSON representations.
func conformant() map[string]resp {
	hal := resp{200, "application/hal+json", map[string]string{"Vary": "Accept"}, `{"a":1}`}
	json := resp{200, "application/json", map[string]string{"Vary": "Accept"}, `{"a":1}`}
	return map[string]resp{
		exchange.PurposeCrawl:     hal,
		conneg.PurposeNone:        hal,
		conneg.PurposeOwn:         hal,
		conneg.PurposeWildcard:    hal,
		conneg.PurposeUnsupported: {406, "application/problem+json", nil, `{}`},
		conneg.PurposeMalformed:   hal,
		conneg.PurposeHead:        {200, "application/hal+json", map[string]string{"Content-Length": "7"}, ""},
		conneg.PurposeOptions:     {204, "", map[string]string{"Allow": "GET, HEAD, OPTIONS"}, ""},
		conneg.PurposeAlt:         json,
		conneg.PurposeQZero:       json,
		conneg.PurposeQOrder:      json,
		conneg.PurposeSpecificity: json,
		// A tie goes to the type listed first, which is also the default
		// the first time and the server's pick the second.
		conneg.PurposeTie:            hal,
		conneg.PurposeTieReversed:    hal,
		conneg.PurposeMixedWildcards: json,
		conneg.PurposeMalformedRange: hal,
	}
}

// build records the answers of a resource, each sent again as a stable
// server answers it, except where answers names a repeat
// (conneg.RepeatPurpose) with another answer.
func build(answers map[string]resp) *checks.Input {
	return checkstest.Input("http://api.test/", []string{u}, resource(u, answers)...)
}

func resource(u string, answers map[string]resp) []*exchange.Exchange {
	var xs []*exchange.Exchange
	for purpose, r := range answers {
		if conneg.IsRepeat(purpose) {
			continue
		}
		x := answer(u, purpose, r)
		xs = append(xs, x)
		for n := 2; n <= 1+conneg.Repeats; n++ {
			if other, ok := answers[conneg.RepeatPurpose(purpose, n)]; ok {
				rx := answer(u, conneg.RepeatPurpose(purpose, n), other)
				rx.BasedOn = u
				xs = append(xs, rx)
				continue
			}
			xs = append(xs, checkstest.Resent(x, n))
		}
	}
	return xs
}

func answer(u, purpose string, r resp) *exchange.Exchange {
	method := http.MethodGet
	switch strings.SplitN(purpose, "#", 2)[0] {
	case conneg.PurposeHead:
		method = http.MethodHead
	case conneg.PurposeOptions:
		method = http.MethodOptions
	}
	b := checkstest.Exchange(purpose, method, u).Status(r.status).Body(r.body)
	if purpose != exchange.PurposeCrawl {
		b.BasedOn(u)
	}
	if r.ctype != "" {
		b.Header("Content-Type", r.ctype)
	}
	for k, v := range r.hdr {
		b.Header(k, v)
	}
	return b.Build()
}

func TestChecksFireOnlyOnTheirDefect(t *testing.T) {
	tests := []struct {
		what   string
		mutate func(map[string]resp)
		want   []string
	}{
		{"conformant", func(map[string]resp) {}, nil},
		{"q-values ignored", func(a map[string]resp) { a[conneg.PurposeQOrder] = a[conneg.PurposeOwn] }, []string{"negotiation-preferred-type"}},
		{"q=0 served", func(a map[string]resp) { a[conneg.PurposeQZero] = a[conneg.PurposeOwn] }, []string{"negotiation-q-zero"}},
		{"specificity", func(a map[string]resp) { a[conneg.PurposeSpecificity] = a[conneg.PurposeOwn] }, []string{"negotiation-specificity"}},
		{"wildcard 406", func(a map[string]resp) { a[conneg.PurposeWildcard] = resp{406, "application/problem+json", nil, "{}"} }, []string{"negotiation-wildcard"}},
		{"unsupported 500", func(a map[string]resp) { a[conneg.PurposeUnsupported] = resp{500, "text/plain", nil, "boom"} }, []string{"negotiation-unsupported-type"}},
		{"unsupported 415", func(a map[string]resp) { a[conneg.PurposeUnsupported] = resp{415, "text/plain", nil, ""} }, []string{"negotiation-unsupported-type"}},
		{"unsupported default is fine", func(a map[string]resp) { a[conneg.PurposeUnsupported] = a[conneg.PurposeOwn] }, nil},
		{"malformed 500", func(a map[string]resp) { a[conneg.PurposeMalformed] = resp{500, "text/plain", nil, "panic"} }, []string{"negotiation-malformed-accept"}},
		{"malformed 400 is fine", func(a map[string]resp) { a[conneg.PurposeMalformed] = resp{400, "application/problem+json", nil, "{}"} }, nil},
		{"head status", func(a map[string]resp) { a[conneg.PurposeHead] = resp{204, "application/hal+json", nil, ""} }, []string{"negotiation-head-status"}},
		{"head length", func(a map[string]resp) {
			a[conneg.PurposeHead] = resp{200, "application/hal+json", map[string]string{"Content-Length": "99"}, ""}
		}, []string{"negotiation-head-content-length"}},
		{"head length with unstable GET is not judged", func(a map[string]resp) {
			a[conneg.PurposeHead] = resp{200, "application/hal+json", map[string]string{"Content-Length": "99"}, ""}
			a[exchange.PurposeCrawl] = resp{200, "application/hal+json", map[string]string{"Vary": "Accept"}, `{"a":12}`}
		}, nil},
		{"head type", func(a map[string]resp) { a[conneg.PurposeHead] = resp{200, "text/plain", nil, ""} }, []string{"negotiation-head-content-type"}},
		{"options no allow", func(a map[string]resp) { a[conneg.PurposeOptions] = resp{204, "", nil, ""} }, []string{"negotiation-options-allow"}},
		{"options 500", func(a map[string]resp) { a[conneg.PurposeOptions] = resp{500, "text/plain", nil, "x"} }, []string{"negotiation-options-failed"}},
		{"options 501 is fine", func(a map[string]resp) {
			a[conneg.PurposeOptions] = resp{501, "text/plain", map[string]string{"Allow": "GET"}, ""}
		}, nil},
		{"options 405 without allow", func(a map[string]resp) { a[conneg.PurposeOptions] = resp{405, "text/plain", nil, ""} }, []string{"negotiation-allow-on-405"}},
		{"head status that flips on a repeat is unstable, not a HEAD defect", func(a map[string]resp) {
			a[conneg.PurposeHead] = resp{500, "text/plain", nil, ""}
			a[conneg.RepeatPurpose(conneg.PurposeHead, 2)] = resp{200, "application/hal+json", map[string]string{"Content-Length": "7"}, ""}
		}, []string{"negotiation-unstable-resource"}},
		{"a 500 that does not hold on a repeat is unstable, not a wildcard defect", func(a map[string]resp) {
			a[conneg.PurposeWildcard] = resp{500, "text/plain", nil, ""}
			a[conneg.RepeatPurpose(conneg.PurposeWildcard, 3)] = a[conneg.PurposeOwn]
		}, []string{"negotiation-unstable-resource"}},
		{"an own GET that fails on a repeat silences every comparison", func(a map[string]resp) {
			a[conneg.PurposeMalformed] = resp{500, "text/plain", nil, "panic"}
			a[conneg.PurposeHead] = resp{204, "application/hal+json", nil, ""}
			a[conneg.RepeatPurpose(conneg.PurposeOwn, 2)] = resp{500, "text/plain", nil, ""}
		}, []string{"negotiation-unstable-resource"}},
		{"options 405 with allow is an honest refusal", func(a map[string]resp) {
			a[conneg.PurposeOptions] = resp{405, "text/plain", map[string]string{"Allow": "GET, HEAD"}, ""}
		}, nil},
		{"options 404 on a resource GET serves", func(a map[string]resp) { a[conneg.PurposeOptions] = resp{404, "text/plain", nil, ""} }, []string{"negotiation-options-client-error"}},
		{"options 400", func(a map[string]resp) { a[conneg.PurposeOptions] = resp{400, "text/plain", nil, ""} }, []string{"negotiation-options-client-error"}},
		{"options 401 is an access decision", func(a map[string]resp) { a[conneg.PurposeOptions] = resp{401, "text/plain", nil, ""} }, nil},
		{"options 429 is transient", func(a map[string]resp) { a[conneg.PurposeOptions] = resp{429, "text/plain", nil, ""} }, nil},
		{"options with CORS methods only", func(a map[string]resp) {
			a[conneg.PurposeOptions] = resp{204, "", map[string]string{"Access-Control-Allow-Methods": "GET, POST"}, ""}
		}, []string{"negotiation-options-cors-only"}},
		{"options with Allow and CORS methods", func(a map[string]resp) {
			a[conneg.PurposeOptions] = resp{204, "", map[string]string{"Allow": "GET", "Access-Control-Allow-Methods": "GET, POST"}, ""}
		}, nil},
		{"one representation: preference not judged", func(a map[string]resp) {
			a[conneg.PurposeAlt] = resp{406, "application/problem+json", nil, "{}"}
			a[conneg.PurposeQOrder] = a[conneg.PurposeOwn]
			a[conneg.PurposeQZero] = a[conneg.PurposeOwn]
			a[conneg.PurposeMixedWildcards] = a[conneg.PurposeOwn]
			a[conneg.PurposeTie] = a[conneg.PurposeAlt]
		}, nil},
		{"q=0 ignored where a learned second type is served", func(a map[string]resp) {
			// A browsable API: no JSON beside the HAL, but HTML when asked
			// for it alone, and q=0 on HAL ignored.
			a[conneg.PurposeAlt] = resp{406, "application/problem+json", nil, "{}"}
			a[conneg.TypePurpose("text/html")] = resp{200, "text/html", map[string]string{"Vary": "Accept"}, "<p>"}
			a[conneg.PurposeQZero] = a[conneg.PurposeOwn]
			a[conneg.PurposeQOrder] = a[conneg.TypePurpose("text/html")]
			delete(a, conneg.PurposeSpecificity)
			delete(a, conneg.PurposeMixedWildcards)
			a[conneg.PurposeMalformedRange] = a[conneg.PurposeOwn]
		}, []string{"negotiation-q-zero"}},
		{"a learned type answered with the own type is one representation", func(a map[string]resp) {
			a[conneg.PurposeAlt] = resp{406, "application/problem+json", nil, "{}"}
			a[conneg.TypePurpose("text/html")] = a[conneg.PurposeOwn]
			a[conneg.PurposeQZero] = a[conneg.PurposeOwn]
			a[conneg.PurposeQOrder] = a[conneg.PurposeOwn]
		}, nil},
		{"*/* overriding type/*", func(a map[string]resp) { a[conneg.PurposeMixedWildcards] = a[conneg.PurposeOwn] }, []string{"negotiation-mixed-wildcards"}},
		{"a tie given to the type listed last", func(a map[string]resp) { a[conneg.PurposeTie] = a[conneg.PurposeAlt] }, []string{"negotiation-tie-break"}},
		{"a tie given to the type listed last, reversed", func(a map[string]resp) {
			a[conneg.PurposeNone], a[conneg.PurposeTie] = a[conneg.PurposeAlt], a[conneg.PurposeAlt]
			a[conneg.PurposeTieReversed] = a[conneg.PurposeOwn]
		}, []string{"negotiation-tie-break"}},
		{"a tie given to the default is fine", func(a map[string]resp) {
			a[conneg.PurposeNone], a[conneg.PurposeTie], a[conneg.PurposeTieReversed] = a[conneg.PurposeAlt], a[conneg.PurposeAlt], a[conneg.PurposeAlt]
		}, nil},
		{"a tie without a default is not judged", func(a map[string]resp) {
			delete(a, conneg.PurposeNone)
			a[conneg.PurposeTie] = a[conneg.PurposeAlt]
		}, nil},
		{"a malformed weight read as q=1", func(a map[string]resp) { a[conneg.PurposeMalformedRange] = a[conneg.PurposeAlt] }, []string{"negotiation-malformed-range"}},
		{"a malformed Accept ignored for the default is fine", func(a map[string]resp) {
			a[conneg.PurposeNone], a[conneg.PurposeMalformedRange] = a[conneg.PurposeAlt], a[conneg.PurposeAlt]
			a[conneg.PurposeTieReversed] = a[conneg.PurposeAlt]
		}, nil},
		{"a malformed weight answered 406 is fine", func(a map[string]resp) {
			a[conneg.PurposeMalformedRange] = resp{406, "application/problem+json", nil, "{}"}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			answers := conformant()
			tt.mutate(answers)
			in := build(answers)
			var got []string
			for _, c := range negotiation.All() {
				fs, _ := checkstest.Run(t, c, in)
				got = append(got, checkstest.IDs(fs)...)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("fired %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSkipsWithoutSamples(t *testing.T) {
	in := checkstest.Input("http://api.test/", nil)
	for _, c := range negotiation.All() {
		if _, reason := checkstest.Run(t, c, in); reason == "" {
			t.Errorf("%s: ran without samples", c.Meta().ID)
		}
	}
}

func TestUnsupportedRecordsWhichBehaviourWasObserved(t *testing.T) {
	in := build(conformant())
	c := negotiation.Unsupported{}
	checkstest.Run(t, c, in)
	obs := in.Observations(c.Meta().ID)
	if len(obs) != 1 || obs[0] != "unsupported Accept answered with 406 Not Acceptable" {
		t.Errorf("observations = %q", obs)
	}
}

// site builds a recording of several sampled resources, each answering
// OPTIONS with options.
func site(paths []string, options resp) *checks.Input {
	var xs []*exchange.Exchange
	var samples []string
	for _, p := range paths {
		su := "http://api.test" + p
		samples = append(samples, su)
		xs = append(xs,
			checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, su).Status(200).Header("Content-Type", "application/json").Body(`{}`).Build())
		b := checkstest.Exchange(conneg.PurposeOptions, http.MethodOptions, su).BasedOn(su).Status(options.status)
		for k, v := range options.hdr {
			b.Header(k, v)
		}
		xs = append(xs, b.Build())
	}
	return checkstest.Input("http://api.test/", samples, xs...)
}

func TestOptionsCORSOnlyIsReportedOncePerSite(t *testing.T) {
	in := site([]string{"/", "/orders", "/orders/1", "/orders/2"}, resp{status: 204, hdr: map[string]string{"Access-Control-Allow-Methods": "GET,POST"}})
	fs, _ := checkstest.Run(t, negotiation.OptionsCORSOnly{}, in)
	if len(fs) != 1 || fs[0].Message != "OPTIONS answered 204 with Access-Control-Allow-Methods and no Allow (4 resources answered alike)" {
		t.Fatalf("findings = %+v", fs)
	}
	if fs, _ := checkstest.Run(t, negotiation.OptionsAllow{}, in); len(fs) != 0 {
		t.Errorf("options-allow warned on a CORS answer: %+v", fs)
	}
}

func TestOptionsClientErrorIsReportedOncePerShape(t *testing.T) {
	in := site([]string{"/", "/orders/1", "/orders/2", "/orders/3"}, resp{status: 404})
	fs, _ := checkstest.Run(t, negotiation.OptionsClientError{}, in)
	var got []string
	for _, f := range fs {
		got = append(got, f.Message)
	}
	want := []string{
		"OPTIONS / answered 404 where GET answered 200",
		"OPTIONS /orders/1 answered 404 where GET answered 200 (3 resources of this shape answered alike)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("messages = %q, want %q", got, want)
	}
	if len(fs) > 0 && (len(fs[0].Evidence) != 2 || fs[0].Evidence[1].Method != http.MethodGet) {
		t.Errorf("evidence = %+v, want the OPTIONS and the GET", fs[0].Evidence)
	}
}

// TestUnrepeatedComparisonIsNotAPass: a pair whose first answers differ but
// were never sent again (the budget ended before the follow-up round) is not
// judged, and the check that judged nothing else does not pass.
func TestUnrepeatedComparisonIsNotAPass(t *testing.T) {
	head405 := conformant()
	head405[conneg.PurposeHead] = resp{405, "text/plain", nil, ""}
	fs, reason := checkstest.Run(t, negotiation.HeadStatus{}, firstSendsOnly(head405))
	if len(fs) != 0 || !strings.Contains(reason, "not confirmed") {
		t.Errorf("findings %v, skip reason %q; want a skip saying the answers were not confirmed", checkstest.IDs(fs), reason)
	}
	// Conformant answers left unrepeated have nothing to confirm.
	if _, reason := checkstest.Run(t, negotiation.HeadStatus{}, firstSendsOnly(conformant())); reason != "" {
		t.Errorf("conformant answers skipped: %q", reason)
	}
}

// firstSendsOnly records the answers without the repeats of any.
func firstSendsOnly(answers map[string]resp) *checks.Input {
	var xs []*exchange.Exchange
	for _, x := range resource(u, answers) {
		if !conneg.IsRepeat(x.Purpose) {
			xs = append(xs, x)
		}
	}
	return checkstest.Input("http://api.test/", []string{u}, xs...)
}

// TestFailedOwnTypeRepeatsTheCrawl: a resource whose own-type GET failed
// where the crawl got 200 is a suspect. With no own-type 2xx to compare, the
// crawl's answer is sent again beside the failed GET, each Repeats times, so
// that a resource failing at random shows a flip wherever its draws fell,
// rather than look like one failing for a reason.
func TestFailedOwnTypeRepeatsTheCrawl(t *testing.T) {
	answers := conformant()
	answers[conneg.PurposeOwn] = resp{500, "text/plain", nil, "boom"}
	var crawl *exchange.Exchange
	var probes []*exchange.Exchange
	for _, x := range firstSendsOnly(answers).Recording.Exchanges {
		if x.Purpose == exchange.PurposeCrawl {
			crawl = x
		} else {
			probes = append(probes, x)
		}
	}
	pin := &checks.PlanInput{Crawled: []*exchange.Exchange{crawl}, Samples: []*exchange.Exchange{crawl}, Probes: probes}
	// The HEAD comparison plans the own GET's repeats too; the probe sends
	// a planned request once, so distinct sends are counted.
	planned := map[string]bool{}
	sends := map[string]int{}
	for _, p := range (negotiation.HeadStatus{}).PlanFollowUp(pin) {
		if p.URL != u || p.BasedOn != u || p.Method != http.MethodGet || planned[p.Purpose] {
			continue
		}
		planned[p.Purpose] = true
		for _, root := range []string{exchange.PurposeCrawl, conneg.PurposeOwn} {
			if p.Purpose == conneg.RepeatPurpose(root, p.Repeat) {
				sends[root]++
			}
		}
	}
	for _, root := range []string{exchange.PurposeCrawl, conneg.PurposeOwn} {
		if sends[root] != conneg.Repeats {
			t.Errorf("%s was planned again %d times, want %d", root, sends[root], conneg.Repeats)
		}
	}
}

// TestTieKeepsTheBrowsersHTML: a page whose default (no Accept) is
// Markdown but which a browser's Accept gets as HTML must keep HTML on a tie
// that lists HTML first; with a browser also served Markdown, the default
// is the page's choice.
func TestTieKeepsTheBrowsersHTML(t *testing.T) {
	html := resp{200, "text/html", map[string]string{"Vary": "Accept"}, "<p>"}
	md := resp{200, "text/markdown", map[string]string{"Vary": "Accept"}, "# p"}
	for _, tt := range []struct {
		what    string
		browser resp
		want    []string
	}{
		{"a browser gets HTML", html, []string{"negotiation-tie-break"}},
		{"a browser gets Markdown", md, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			in := build(map[string]resp{
				exchange.PurposeCrawl:     html,
				conneg.PurposeNone:        md,
				conneg.PurposeOwn:         html,
				conneg.PurposeAlt:         md,
				conneg.PurposeTie:         md,
				conneg.PurposeTieReversed: md,
				conneg.PurposeBrowser:     tt.browser,
			})
			fs, _ := checkstest.Run(t, negotiation.TieBreak{}, in)
			if got := checkstest.IDs(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("fired %v, want %v", got, tt.want)
			}
			if len(fs) > 0 && !strings.Contains(fs[0].Message, "a browser's Accept gets text/html") {
				t.Errorf("message %q does not name the browser's HTML", fs[0].Message)
			}
		})
	}
	t.Run("an API whose HTML only browsers get keeps its default", func(t *testing.T) {
		json := resp{200, "application/json", map[string]string{"Vary": "Accept"}, "{}"}
		in := build(map[string]resp{
			exchange.PurposeCrawl:           json,
			conneg.PurposeNone:              json,
			conneg.PurposeOwn:               json,
			conneg.TypePurpose("text/html"): html,
			conneg.PurposeTie:               json,
			conneg.PurposeTieReversed:       json,
			conneg.PurposeBrowser:           html,
		})
		if fs, reason := checkstest.Run(t, negotiation.TieBreak{}, in); len(fs) > 0 || reason != "" {
			t.Errorf("fired %v (%s), want a pass", checkstest.IDs(fs), reason)
		}
	})
}

// TestRankingProbesFollowASecondRepresentation: the ranking probes are sent
// in the follow-up round, and only to a resource that a probe proved serves
// a second type: the paired alternate, or a type learned by asking for it
// alone, such as the HTML of a browsable API beside its JSON.
func TestRankingProbesFollowASecondRepresentation(t *testing.T) {
	learned := func(mt string, r resp) []*exchange.Exchange {
		return []*exchange.Exchange{answer(u, conneg.TypePurpose(mt), r)}
	}
	for _, tt := range []struct {
		what   string
		crawl  string
		probes []*exchange.Exchange
		want   []string
	}{
		{"two representations", "application/hal+json", []*exchange.Exchange{answer(u, conneg.PurposeAlt, resp{200, "application/json", nil, `{}`})}, []string{
			conneg.PurposeQZero + " application/hal+json;q=0, application/json;q=0.5",
			conneg.PurposeQOrder + " application/hal+json;q=0.4, application/json",
			conneg.PurposeTie + " application/hal+json, application/json",
			conneg.PurposeTieReversed + " application/json, application/hal+json",
			conneg.PurposeMalformedRange + " application/json;q=nope, application/hal+json;q=0.5",
			conneg.PurposeSpecificity + " application/hal+json;q=0.2, application/*;q=0.9",
			conneg.PurposeMixedWildcards + " */*;q=0.9, application/*;q=0.1, application/json;q=0.5",
		}},
		{"a learned second representation", "application/json", append(
			[]*exchange.Exchange{answer(u, conneg.PurposeAlt, resp{406, "application/json", nil, `{}`})},
			append(learned("text/html", resp{200, "text/html", nil, "<p>"}), learned("application/xml", resp{200, "application/json", nil, "{}"})...)...), []string{
			conneg.PurposeQZero + " application/json;q=0, text/html;q=0.5",
			conneg.PurposeQOrder + " application/json;q=0.4, text/html",
			conneg.PurposeTie + " application/json, text/html",
			conneg.PurposeTieReversed + " text/html, application/json",
			conneg.PurposeMalformedRange + " text/html;q=nope, application/json;q=0.5",
			conneg.PurposeBrowser + " " + conneg.BrowserAccept,
		}},
		{"a learned type another family's identical probe carried", "application/json", func() []*exchange.Exchange {
			x := answer(u, "discovery/markdown-html", resp{200, "text/html", nil, "<p>"})
			x.SharedWith = []exchange.Use{{Purpose: conneg.TypePurpose("text/html"), BasedOn: u}}
			return []*exchange.Exchange{x}
		}(), []string{
			conneg.PurposeQZero + " application/json;q=0, text/html;q=0.5",
			conneg.PurposeQOrder + " application/json;q=0.4, text/html",
			conneg.PurposeTie + " application/json, text/html",
			conneg.PurposeTieReversed + " text/html, application/json",
			conneg.PurposeMalformedRange + " text/html;q=nope, application/json;q=0.5",
			conneg.PurposeBrowser + " " + conneg.BrowserAccept,
		}},
		{"one representation", "application/hal+json", []*exchange.Exchange{answer(u, conneg.PurposeAlt, resp{406, "application/problem+json", nil, `{}`})}, nil},
		{"the alternate answered with the own type", "application/hal+json", []*exchange.Exchange{answer(u, conneg.PurposeAlt, resp{200, "application/hal+json", nil, `{}`})}, nil},
		{"a learned type answered with the own type", "application/json", learned("text/html", resp{200, "application/json", nil, `{}`}), nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			crawl := answer(u, exchange.PurposeCrawl, resp{200, tt.crawl, nil, `{}`})
			in := &checks.PlanInput{Crawled: []*exchange.Exchange{crawl}, Samples: []*exchange.Exchange{crawl}, Probes: tt.probes}
			var got []string
			for _, p := range (negotiation.TieBreak{}).PlanFollowUp(in) {
				if p.URL != u || p.BasedOn != u {
					t.Errorf("planned %+v", p)
				}
				got = append(got, p.Purpose+" "+p.Header.Get("Accept"))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("follow-up %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRepresentationsAreAskedOncePerShape: the first sample of each path
// shape is asked for each type it may serve, alone: those its Link header
// names as alternates, the probed set, then the site's other types, leaving
// out its own type and the paired alternate, at most eight.
func TestRepresentationsAreAskedOncePerShape(t *testing.T) {
	first := checkstest.Exchange(exchange.PurposeCrawl, http.MethodGet, "http://api.test/orders/1").Status(200).
		Header("Content-Type", "application/json").Header("Link", `</orders/1.csv>; rel="alternate"; type="text/csv"`).Build()
	second := answer("http://api.test/orders/2", exchange.PurposeCrawl, resp{200, "application/json", nil, `{}`})
	image := answer("http://api.test/logo", exchange.PurposeCrawl, resp{200, "image/png", nil, "png"})
	in := &checks.PlanInput{Crawled: []*exchange.Exchange{first, second, image}, Samples: []*exchange.Exchange{first, second}}
	var got []string
	for _, p := range (negotiation.QZero{}).Plan(in) {
		if strings.HasPrefix(p.Purpose, conneg.TypePurpose("")) {
			if p.URL != first.Request.URL || p.BasedOn != p.URL {
				t.Errorf("planned %+v", p)
			}
			if conneg.TypePurpose(p.Header.Get("Accept")) != p.Purpose {
				t.Errorf("%s asks for %q", p.Purpose, p.Header.Get("Accept"))
			}
			got = append(got, p.Header.Get("Accept"))
		}
	}
	want := []string{"text/csv", "text/html", "application/vnd.api+json", "application/xml", "text/markdown", "text/plain", "image/png"}
	if !slices.Equal(got, want) {
		t.Errorf("asked for %q, want %q", got, want)
	}
}

// TestConfirmedServerErrorIsSentUntilItCanBeTrusted: a crawl answer of 500
// that both first-round repeats gave again is sent Confirmations more times
// before any check may call it the server's failure; one whose repeats
// already differ is unstable and needs no more.
func TestConfirmedServerErrorIsSentUntilItCanBeTrusted(t *testing.T) {
	for _, tt := range []struct {
		what    string
		repeats []int
		want    []int
	}{
		{"every send failed", []int{500, 500}, []int{4, 5, 6, 7, 8, 9, 10}},
		{"a repeat succeeded", []int{500, 200}, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			boom := resp{500, "text/plain", nil, "boom"}
			crawled := []*exchange.Exchange{answer(u, exchange.PurposeCrawl, boom)}
			for i, status := range tt.repeats {
				x := answer(u, conneg.RepeatPurpose(exchange.PurposeCrawl, i+2), resp{status, "text/plain", nil, "boom"})
				x.BasedOn = u
				crawled = append(crawled, x)
			}
			var got []int
			for _, p := range (negotiation.HeadStatus{}).PlanFollowUp(&checks.PlanInput{Crawled: crawled}) {
				if p.Purpose != conneg.RepeatPurpose(exchange.PurposeCrawl, p.Repeat) || p.URL != u {
					t.Errorf("planned %+v", p)
				}
				got = append(got, p.Repeat)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("sends %v planned, want %v", got, tt.want)
			}
			if len(tt.want) > 0 && len(tt.want) != conneg.Confirmations {
				t.Errorf("want lists %d sends, Confirmations is %d", len(tt.want), conneg.Confirmations)
			}
		})
	}
}

// TestMissingItemHeadStatus: HEAD of a URL problem-json asked for a missing
// item is judged against the GET of that URL with the same Accept; a
// router that answers HEAD 405 where GET says 404 is reported, a HEAD that
// agrees is not, and a throttled or failing answer says nothing.
func TestMissingItemHeadStatus(t *testing.T) {
	const missing = "http://api.test/orders/agentready-missing-7f3c"
	pair := func(getStatus, headStatus int) []*exchange.Exchange {
		get := checkstest.Exchange("problem-json/not-found-child", http.MethodGet, missing).ReqHeader("Accept", "application/json, application/problem+json").
			Status(getStatus).Header("Content-Type", "text/plain").Body("404 page not found").Build()
		head := checkstest.Exchange(purpose.NotFoundHead, http.MethodHead, missing).ReqHeader("Accept", "application/json, application/problem+json").
			Status(headStatus).Header("Allow", "GET").Build()
		return append(resource(u, conformant()), get, head)
	}
	for _, tt := range []struct {
		what      string
		get, head int
		want      []string
	}{
		{"405 where GET says 404", 404, 405, []string{"HEAD answered 405 where GET with the same Accept answered 404, for a resource that does not exist"}},
		{"agrees", 404, 404, nil},
		{"throttled", 404, 429, nil},
		{"server error", 500, 405, nil},
	} {
		t.Run(tt.what, func(t *testing.T) {
			fs, reason := checkstest.Run(t, negotiation.HeadStatus{}, checkstest.Input("http://api.test/", []string{u}, pair(tt.get, tt.head)...))
			var got []string
			for _, f := range fs {
				got = append(got, f.Message)
			}
			if !slices.Equal(got, tt.want) || reason != "" {
				t.Errorf("messages %q (skip %q), want %q", got, reason, tt.want)
			}
			if len(fs) == 1 && (fs[0].Evidence[0].Method != http.MethodHead || fs[0].Evidence[1].Method != http.MethodGet) {
				t.Errorf("evidence %+v, want the HEAD then the GET", fs[0].Evidence)
			}
		})
	}
}
