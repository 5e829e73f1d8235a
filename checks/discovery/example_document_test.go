package discovery

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// This file follows CONTRIBUTING's "Adding a discovery document" with
// security.txt (RFC 9116), in test code: its parser, its document, one
// check, and a scan that fetches, parses and judges it.

// securityTxt is what the check reads of a security.txt. A real parser sits
// in checks/internal/<document>, with its bounds and its own tests.
type securityTxt struct{ contacts []string }

func parseSecurityTxt(body []byte) *securityTxt {
	f := &securityTxt{}
	lines := bufio.NewScanner(bytes.NewReader(body))
	for lines.Scan() {
		name, value, ok := strings.Cut(lines.Text(), ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Contact") {
			f.contacts = append(f.contacts, strings.TrimSpace(value))
		}
	}
	return f
}

// purposeSecurityTxt names the request; docSecurityTxt is where the
// document lives, and the one value the plan and the check share.
const purposeSecurityTxt = "discovery/security-txt"

var (
	docSecurityTxt = document{purposeSecurityTxt, http.MethodGet, "/.well-known/security.txt", ""}
	securityTxtKey = checks.NewKey[*securityTxt]()
)

// securityTxtContact embeds plans, the family's planner, which asks for
// every listed document.
type securityTxtContact struct{ plans }

func (securityTxtContact) Meta() checks.Meta {
	return checks.Meta{
		ID: "discovery-security-txt-contact", Family: checks.FamilyDiscovery, Severity: finding.SeverityWarning,
		Since:    checks.FirstRelease,
		Title:    "security.txt says whom to contact",
		SpecRefs: []finding.SpecRef{ref("RFC 9116", "2.5.3", "MUST", "https://www.rfc-editor.org/rfc/rfc9116#section-2.5.3")},
		Help: `A security.txt without a Contact field tells a researcher there is a policy and no one to
report to.

**How to fix:** add ` + "`Contact: mailto:security@example.com`" + `.`,
	}
}

func (c securityTxtContact) Run(_ context.Context, in *checks.Input) ([]finding.Finding, error) {
	x := docSecurityTxt.fetched(in)
	switch {
	case x == nil || x.Response == nil:
		return nil, checks.Skip(docSecurityTxt.path + " was not fetched or got no response")
	case !ok2xx(x) || isHTML(x):
		return nil, checks.Skip(docSecurityTxt.path + " is not published")
	case !x.Response.Whole():
		return nil, checks.Skip("the body of " + docSecurityTxt.path + " was cut or not kept")
	}
	f := checks.Memo(in, securityTxtKey, func() *securityTxt { return parseSecurityTxt(x.Response.Body) })
	if len(f.contacts) > 0 {
		return nil, nil
	}
	ev := evidence(x)
	ev.Expected, ev.Actual = "at least one Contact field", "none"
	return []finding.Finding{checks.New(c.Meta(), "", docSecurityTxt.path+" names no Contact", ev)}, nil
}

// Example_addingADiscoveryDocument lists the document, scans a server that
// publishes it without a Contact, and prints what the check said. Without
// the document in documents, the scan never asks for it and the check
// skips.
func Example_addingADiscoveryDocument() {
	defer func(listed []document) { documents = listed }(documents)
	documents = append(slices.Clone(documents), docSecurityTxt)

	reg, err := checks.NewRegistry(securityTxtContact{})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/hal+json")
		fmt.Fprint(w, `{"_links":{"self":{"href":"/"}}}`)
	})
	mux.HandleFunc("GET /.well-known/security.txt", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Expires: 2027-01-01T00:00:00Z\n")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	start, _ := url.Parse(srv.URL + "/")
	rep, err := scan.Run(context.Background(), scan.Options{
		Probe:   probe.Config{Start: start, Budget: time.Minute},
		Checks:  reg.All(),
		Version: "test",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range rep.Checks {
		fmt.Println(c.ID, c.Status)
	}
	for _, f := range rep.Findings {
		ev := f.Evidence[0]
		fmt.Println(f.Severity, f.Message)
		fmt.Println(ev.Method, strings.TrimPrefix(ev.URL, srv.URL), ev.Status)
	}
	// Output:
	// discovery-security-txt-contact fail
	// warning /.well-known/security.txt names no Contact
	// GET /.well-known/security.txt 200
}
