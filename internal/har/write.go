package har

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// timeLayout is ISO 8601 with milliseconds, as HAR 1.2 shows it.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// Options say who writes the archive and what it must not contain.
type Options struct {
	// Version is agentready's version, for the creator.
	Version string
	// Secrets are scrubbed from the embedded OpenAPI document, the one
	// part of the recording the scan did not scrub as it recorded (a local
	// file is not the server's answer). The caller scrubs the whole
	// document as written too.
	Secrets *exchange.Secrets
}

// Write writes rec as a HAR 1.2 document.
func Write(w io.Writer, rec *scan.Recording, opt Options) error {
	if rec == nil || rec.Outcome == nil || rec.Outcome.Recording == nil || rec.Target == nil {
		return errors.New("har: nothing was recorded")
	}
	out := rec.Outcome
	ix := indexExchanges(out)
	data := &scanData{
		Format: Format, Target: rec.Target.String(),
		Caller: out.Caller, Stats: out.Stats, Throttling: out.Throttling, Notes: out.Notes,
		Unfilled: out.Unfilled, TLSUnverified: rec.TLSUnverified,
	}
	recs := recordingsOf(out)
	for _, r := range recs {
		data.Recordings = append(data.Recordings, ix.recording(r))
	}
	data.Primary = slices.Index(recs, out.Recording)
	snaps := snapshotsOf(out)
	for _, s := range snaps {
		data.Snapshots = append(data.Snapshots, ix.snapshot(s))
	}
	data.MCP = position(snaps, out.MCP)
	for _, v := range out.Views {
		data.Views = append(data.Views, viewData{Name: v.Name, Recording: position(recs, v.Recording), MCP: position(snaps, v.MCP)})
		data.Callers = append(data.Callers, v.Caller)
	}
	if a := out.Active; a != nil {
		data.Active = &activeData{Allow: a.Allow, Confirmed: a.Confirmed, Planned: a.Planned, Sent: a.Sent}
	}
	if t := out.Trial; t != nil {
		data.Trial = ix.trial(t)
	}
	if b := out.BasePath; b != nil {
		data.BasePath = &basePath{Path: b.Path, How: b.How, Mismatch: b.Mismatch}
	}
	if d := out.Spec; d != nil {
		if d.Raw == nil {
			return errors.New("har: the OpenAPI document's text was not kept, so a replay could not load it")
		}
		raw, _ := opt.Secrets.Bytes(d.Raw, false)
		sum := sha256.Sum256(raw)
		data.OpenAPI = &specData{Source: d.Source, File: d.File, Discovery: out.SpecDiscovery,
			SHA256: hex.EncodeToString(sum[:]), Text: text(raw)}
	}
	doc := file{Log: harLog{
		Version: Version,
		Creator: creator{Name: "agentready", Version: opt.Version},
		Entries: ix.entries(),
		Comment: "agentready scan of " + rec.Target.Redacted() + "; replay it with: agentready scan --replay FILE",
		Scan:    data,
	}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// recordingsOf lists the session's recordings once each: the views' in
// their order, then the main one when it is no view's.
func recordingsOf(out *probe.Outcome) []*exchange.Recording {
	var recs []*exchange.Recording
	for _, v := range out.Views {
		if v.Recording != nil && !slices.Contains(recs, v.Recording) {
			recs = append(recs, v.Recording)
		}
	}
	if !slices.Contains(recs, out.Recording) {
		recs = append(recs, out.Recording)
	}
	return recs
}

// snapshotsOf lists the session's MCP snapshots once each.
func snapshotsOf(out *probe.Outcome) []*mcp.Snapshot {
	var snaps []*mcp.Snapshot
	add := func(s *mcp.Snapshot) {
		if s != nil && !slices.Contains(snaps, s) {
			snaps = append(snaps, s)
		}
	}
	add(out.MCP)
	for _, v := range out.Views {
		add(v.MCP)
	}
	return snaps
}

func position[T comparable](list []T, v T) *int {
	i := slices.Index(list, v)
	if i < 0 {
		return nil
	}
	return &i
}

// exchangeIndex numbers every exchange of the session once, in the order
// they were sent, which is the order HAR prefers for its entries.
type exchangeIndex struct {
	list []*exchange.Exchange
	at   map[*exchange.Exchange]int
}

func indexExchanges(out *probe.Outcome) *exchangeIndex {
	ix := &exchangeIndex{at: map[*exchange.Exchange]int{}}
	var all []*exchange.Exchange
	seen := map[*exchange.Exchange]bool{}
	add := func(x *exchange.Exchange) {
		if x != nil && !seen[x] {
			seen[x] = true
			all = append(all, x)
		}
	}
	for _, r := range recordingsOf(out) {
		for _, x := range r.Exchanges {
			add(x)
		}
	}
	for _, s := range snapshotsOf(out) {
		for _, c := range callsOf(s) {
			add(c.Exchange)
		}
		for _, x := range s.ResourceMetadata {
			add(x)
		}
	}
	if out.Trial != nil {
		for _, r := range out.Trial.Runs {
			for _, x := range r.Exchanges {
				add(x)
			}
		}
	}
	starts := startTimes(all)
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return starts[order[a]].Before(starts[order[b]]) })
	for _, i := range order {
		ix.at[all[i]] = len(ix.list)
		ix.list = append(ix.list, all[i])
	}
	return ix
}

// startTimes are the exchanges' start times, an exchange that was never
// sent (refused before it left) taking the time of the one before it.
func startTimes(xs []*exchange.Exchange) []time.Time {
	out := make([]time.Time, len(xs))
	var last time.Time
	for _, x := range xs {
		if x.Started != 0 {
			last = time.Unix(0, x.Started)
			break
		}
	}
	if last.IsZero() {
		last = time.Now()
	}
	for i, x := range xs {
		if x.Started != 0 {
			last = time.Unix(0, x.Started)
		}
		out[i] = last
	}
	return out
}

func (ix *exchangeIndex) ref(x *exchange.Exchange) *int {
	if x == nil {
		return nil
	}
	i, ok := ix.at[x]
	if !ok {
		return nil
	}
	return &i
}

func (ix *exchangeIndex) recording(r *exchange.Recording) recordingData {
	d := recordingData{Target: r.Target, Exchanges: []int{}}
	for _, x := range r.Exchanges {
		d.Exchanges = append(d.Exchanges, ix.at[x])
	}
	if r.Samples != nil {
		d.Samples = []text{}
	}
	for _, s := range r.Samples {
		d.Samples = append(d.Samples, text(s))
	}
	return d
}

func (ix *exchangeIndex) trial(t *exchange.TrialPlan) *trialData {
	d := &trialData{Tasks: t.Tasks, Runs: []trialRunData{}, Reset: t.Reset, Notes: t.Notes,
		PlanOnly: t.PlanOnly, Sent: t.Sent}
	for _, r := range t.Runs {
		rd := trialRunData{Task: r.Task, Player: r.Player, Resource: r.Resource, Identity: r.Identity, Steps: r.Steps,
			Exchanges: []int{}, Roles: r.Roles, CreatedAt: r.CreatedAt, NoCleanup: r.NoCleanup}
		for _, x := range r.Exchanges {
			rd.Exchanges = append(rd.Exchanges, ix.at[x])
		}
		d.Runs = append(d.Runs, rd)
	}
	return d
}

func (ix *exchangeIndex) entries() []entry {
	starts := startTimes(ix.list)
	out := make([]entry, len(ix.list))
	for i, x := range ix.list {
		out[i] = toEntry(x, starts[i])
	}
	return out
}

func toEntry(x *exchange.Exchange, started time.Time) entry {
	ms := float64(x.Duration.Microseconds()) / 1000
	e := entry{
		StartedDateTime: started.UTC().Format(timeLayout),
		Time:            ms,
		Request:         toRequest(x),
		Response:        toResponse(x.Response),
		Timings:         timings{Wait: ms},
		Data: entryData{
			ID: x.ID, Purpose: x.Purpose, Source: text(x.Source), BasedOn: text(x.BasedOn),
			Depth: x.Depth, Identity: x.Identity, Error: text(x.Err), SharedWith: uses(x.SharedWith),
			SessionStart: sessionRequests(x.Request.SessionStart()),
		},
	}
	if !utf8.ValidString(x.Request.URL) {
		e.Data.URL = text(x.Request.URL)
	}
	if a := x.AfterHead; a != nil {
		e.Data.AfterHead, e.Data.AfterHeadSize = text(a.Bytes), a.Size
	}
	if x.Response != nil && x.Response.Replaced != nil {
		first := x.Response.Replaced
		e.Data.Throttled = &throttledData{Status: first.Status, Headers: headers(first.Header)}
	}
	if r := x.Response; r != nil {
		e.Data.Truncated, e.Data.Dropped, e.Data.Unread, e.Data.Redactions = r.Truncated, r.Dropped, r.Unread, r.Redactions
		e.Request.HTTPVersion = r.Proto
	} else {
		e.Data.NoResponse = true
		e.Response.Error = strings.ToValidUTF8(x.Err, "\uFFFD")
	}
	return e
}

func uses(us []exchange.Use) []use {
	var out []use
	for _, u := range us {
		out = append(out, use{Purpose: u.Purpose, BasedOn: text(u.BasedOn)})
	}
	return out
}

func toRequest(x *exchange.Exchange) request {
	r := x.Request
	out := request{
		Method: r.Method, URL: strings.ToValidUTF8(r.URL, "\uFFFD"), HTTPVersion: "HTTP/1.1",
		Cookies: []nameValue{}, Headers: headers(r.Header), QueryString: query(r.URL),
		HeadersSize: -1, BodySize: len(r.Body),
	}
	if r.Body != "" {
		out.PostData = &postData{MimeType: r.Header.Get("Content-Type"), Text: r.Body}
		if !utf8.ValidString(r.Body) {
			out.PostData.Text, out.PostData.Encoding = base64.StdEncoding.EncodeToString([]byte(r.Body)), "base64"
		}
	}
	return out
}

func toResponse(r *exchange.Response) response {
	if r == nil {
		return response{Cookies: []nameValue{}, Headers: []header{}, Content: content{MimeType: "x-unknown"}, HeadersSize: -1, BodySize: -1}
	}
	out := response{
		Status: r.Status, StatusText: http.StatusText(r.Status), HTTPVersion: r.Proto,
		Cookies: []nameValue{}, Headers: headers(r.Header),
		Content:     content{Size: r.BodySize, MimeType: r.Header.Get("Content-Type")},
		RedirectURL: strings.ToValidUTF8(r.Header.Get("Location"), "\uFFFD"),
		HeadersSize: -1, BodySize: r.BodySize,
	}
	if out.Content.MimeType == "" {
		out.Content.MimeType = "x-unknown"
	}
	if r.Body != nil {
		body := string(r.Body)
		if !utf8.Valid(r.Body) {
			body, out.Content.Encoding = base64.StdEncoding.EncodeToString(r.Body), "base64"
		}
		out.Content.Text = &body
	}
	return out
}

// headers lists h sorted by name, each name's values in their order.
func headers(h http.Header) []header {
	out := []header{}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range h[name] {
			line := header{Name: name, Value: v}
			if !utf8.ValidString(v) {
				line.Value, line.Base64 = strings.ToValidUTF8(v, "\uFFFD"), base64.StdEncoding.EncodeToString([]byte(v))
			}
			out = append(out, line)
		}
	}
	return out
}

// query is the URL's query string as HAR lists it, for viewers; a replay
// reads the URL itself.
func query(raw string) []nameValue {
	out := []nameValue{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for _, pair := range strings.Split(u.RawQuery, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		n, errN := url.QueryUnescape(name)
		v, errV := url.QueryUnescape(value)
		if errN != nil || errV != nil {
			n, v = name, value
		}
		out = append(out, nameValue{Name: strings.ToValidUTF8(n, "\uFFFD"), Value: strings.ToValidUTF8(v, "\uFFFD")})
	}
	return out
}

func sessionRequests(rs []exchange.Request) []sessionRequest {
	var out []sessionRequest
	for _, r := range rs {
		s := sessionRequest{Method: r.Method, URL: text(r.URL), Headers: headers(r.Header), Start: sessionRequests(r.SessionStart())}
		if r.Body != "" {
			b := text(r.Body)
			s.Body = &b
		}
		out = append(out, s)
	}
	return out
}

// callsOf lists every call a snapshot names, each once, its call list
// first.
func callsOf(s *mcp.Snapshot) []*mcp.Call {
	var out []*mcp.Call
	add := func(c *mcp.Call) {
		if c != nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, c := range s.Calls {
		add(c)
	}
	add(s.SessionDemanded)
	add(s.ForeignOrigin)
	for _, l := range s.Listings {
		for _, p := range l.Pages {
			add(p.Call)
		}
		add(l.Failed)
	}
	for _, o := range s.Others {
		for _, c := range o.Calls {
			add(c)
		}
	}
	return out
}

func (ix *exchangeIndex) snapshot(s *mcp.Snapshot) snapshotData {
	calls := callsOf(s)
	ref := func(c *mcp.Call) *int { return position(calls, c) }
	refs := func(cs []*mcp.Call) []int {
		if cs == nil {
			return nil
		}
		out := []int{}
		for _, c := range cs {
			out = append(out, *ref(c))
		}
		return out
	}
	d := snapshotData{
		Endpoint: s.Endpoint, Identity: s.Identity, Verdict: s.Verdict,
		ServerInfo: rawText(s.ServerInfo), Capabilities: rawText(s.Capabilities),
		SessionID: s.SessionID, SessionDemanded: ref(s.SessionDemanded),
		Calls: []callData{}, Called: refs(s.Calls), Catalog: s.Catalog, Notes: s.Notes,
		ForeignOrigin: ref(s.ForeignOrigin),
	}
	for _, x := range s.ResourceMetadata {
		if i := ix.ref(x); i != nil {
			d.ResourceMetadata = append(d.ResourceMetadata, *i)
		}
	}
	for _, c := range calls {
		d.Calls = append(d.Calls, ix.call(c))
	}
	for _, l := range s.Listings {
		ld := listingData{Label: l.Label, Complete: l.Complete, Problem: l.Problem, Failed: ref(l.Failed)}
		for _, p := range l.Pages {
			ld.Pages = append(ld.Pages, pageData{Call: ref(p.Call), Cursor: p.Cursor, NextCursor: p.NextCursor, Raw: rawText(p.Raw)})
		}
		for _, t := range l.Tools {
			ld.Tools = append(ld.Tools, toolData{
				Name: t.Name, Title: t.Title, Description: t.Description,
				InputSchema: rawText(t.InputSchema), OutputSchema: rawText(t.OutputSchema),
				Annotations: t.Annotations, Meta: rawText(t.Meta), Raw: rawText(t.Raw),
				Page: t.Page, Index: t.Index, NameValid: t.NameValid,
			})
		}
		d.Listings = append(d.Listings, ld)
	}
	for _, o := range s.Others {
		d.Others = append(d.Others, endpointData{Endpoint: o.Endpoint, Verdict: o.Verdict, Calls: refs(o.Calls)})
	}
	return d
}

func (ix *exchangeIndex) call(c *mcp.Call) callData {
	d := callData{Method: c.Method, Era: c.Era, Exchange: ix.ref(c.Exchange), ParseError: c.ParseError, Connection: c.Connection}
	if m := c.Message; m != nil {
		d.Message = &messageData{ID: rawText(m.ID), Method: m.Method, Result: rawText(m.Result)}
		if e := m.Error; e != nil {
			d.Message.Error = &rpcError{Code: e.Code, Message: e.Message, Data: rawText(e.Data)}
		}
	}
	return d
}
