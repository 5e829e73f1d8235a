package har

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// Archive is a recording read back.
type Archive struct {
	Recording *scan.Recording
	// Creator is the name and version of what wrote it.
	Creator string
	// Version is the version of agentready that wrote it.
	Version string
}

// DefaultMaxSize is the cap on a recording read unless the caller sets
// another: a replay holds every body it records, so the cap is what bounds
// memory.
const DefaultMaxSize = 512 << 20

// TooLargeError is a recording over the size cap. Size is 0 when the size
// is not known (a stream cut at the cap).
type TooLargeError struct {
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	if e.Size > e.Max {
		return fmt.Sprintf("the recording is %d bytes, over the cap of %d", e.Size, e.Max)
	}
	return fmt.Sprintf("the recording is over the cap of %d bytes", e.Max)
}

// Read reads a HAR document written by Write, refusing one over maxSize
// bytes (a *TooLargeError). Any other HAR is refused with an error that
// says why: a replay needs what the checks read besides the exchanges,
// which only Write puts there. Nothing is sent, and nothing beyond r is
// read.
//
// The entries are decoded one at a time as they are read, each turned into
// its exchange before the next: memory holds the exchanges and one entry
// being decoded, never the document whole, and no string is longer than
// the cap.
func Read(r io.Reader, maxSize int64) (*Archive, error) {
	capped := &cappedReader{r: r, left: maxSize + 1}
	dec := json.NewDecoder(capped)
	rd := &reader{}
	l, err := rd.readFile(dec)
	if capped.left <= 0 {
		return nil, &TooLargeError{Max: maxSize}
	}
	if err != nil {
		return nil, fmt.Errorf("not a HAR document: %w", err)
	}
	switch {
	case l.Version == "" && !l.entries:
		return nil, errors.New("not a HAR document: no log with entries")
	case l.Version != Version:
		return nil, fmt.Errorf("HAR version %q: want %s", l.Version, Version)
	case l.Scan == nil:
		return nil, fmt.Errorf("this HAR was not written by agentready --record (it was written by %s): a replay needs the scan's own data, in its _agentready fields", creatorOf(l.Creator))
	case l.Scan.Format != Format:
		return nil, fmt.Errorf("this HAR holds agentready recording format %d, and this agentready reads format %d", l.Scan.Format, Format)
	}
	if rd.entryErr != nil {
		return nil, fmt.Errorf("the recording is inconsistent: %w", rd.entryErr)
	}
	rd.data = l.Scan
	rec, err := rd.recording()
	if err != nil {
		return nil, fmt.Errorf("the recording is inconsistent: %w", err)
	}
	return &Archive{Recording: rec, Creator: creatorOf(l.Creator), Version: l.Creator.Version}, nil
}

// cappedReader reads at most left bytes of r, then fails: the limit holds
// for a file that grows while it is read, a pipe and a device.
type cappedReader struct {
	r    io.Reader
	left int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

var errTooLarge = errors.New("over the size cap")

// logHead is the log without its entries, which the reader turns into
// exchanges as it meets them.
type logHead struct {
	Version string
	Creator creator
	Scan    *scanData
	// entries is set when the log has an entries array.
	entries bool
}

// readFile reads the document {"log": {...}} and nothing after it.
func (rd *reader) readFile(dec *json.Decoder) (*logHead, error) {
	l := &logHead{}
	err := readObject(dec, func(key string) error {
		if key != "log" {
			return skipValue(dec)
		}
		return rd.readLog(dec, l)
	})
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON document")
	}
	return l, nil
}

func (rd *reader) readLog(dec *json.Decoder, l *logHead) error {
	return readObject(dec, func(key string) error {
		switch key {
		case "version":
			return dec.Decode(&l.Version)
		case "creator":
			return dec.Decode(&l.Creator)
		case "_agentready":
			return dec.Decode(&l.Scan)
		case "entries":
			if l.entries {
				return errors.New("a log with two entries arrays")
			}
			var err error
			l.entries, err = rd.readEntries(dec)
			return err
		}
		return skipValue(dec)
	})
}

// readEntries turns each entry into its exchange as it is decoded. An
// entry that does not convert is kept as the error the reader gives once
// it knows the file is a recording at all, and the entries after it are
// skipped.
func (rd *reader) readEntries(dec *json.Decoder) (bool, error) {
	t, err := dec.Token()
	if err != nil || t == nil {
		return false, err
	}
	if t != json.Delim('[') {
		return false, fmt.Errorf("log.entries is %v, not an array", t)
	}
	for dec.More() {
		if rd.entryErr != nil {
			if err := skipValue(dec); err != nil {
				return true, err
			}
			continue
		}
		var e entry
		if err := dec.Decode(&e); err != nil {
			return true, err
		}
		x, err := fromEntry(e)
		if err != nil {
			rd.entryErr = fmt.Errorf("entry %d: %w", len(rd.exchanges), err)
			continue
		}
		rd.exchanges = append(rd.exchanges, x)
	}
	_, err = dec.Token()
	return true, err
}

// readObject reads an object, calling member to read the value of each
// key.
func readObject(dec *json.Decoder, member func(key string) error) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != json.Delim('{') {
		return fmt.Errorf("%v where an object was expected", t)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if err := member(key); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// skipValue reads a value the reader does not use, token by token, keeping
// none of it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

func creatorOf(c creator) string {
	if c.Name == "" {
		return "an unnamed tool"
	}
	return strings.TrimSpace(c.Name + " " + c.Version)
}

type reader struct {
	data      *scanData
	exchanges []*exchange.Exchange
	// entryErr is why an entry did not convert.
	entryErr error
}

func (rd *reader) recording() (*scan.Recording, error) {
	d := rd.data
	target, err := url.Parse(d.Target)
	if err != nil || target.Host == "" || (target.Scheme != "http" && target.Scheme != "https") {
		return nil, fmt.Errorf("target %q is not an absolute http or https URL", d.Target)
	}
	recs := make([]*exchange.Recording, len(d.Recordings))
	for i, r := range d.Recordings {
		if recs[i], err = rd.exchangeRecording(r); err != nil {
			return nil, fmt.Errorf("recording %d: %w", i, err)
		}
	}
	if d.Primary < 0 || d.Primary >= len(recs) {
		return nil, fmt.Errorf("the main recording is %d of %d", d.Primary, len(recs))
	}
	snaps := make([]*mcp.Snapshot, len(d.Snapshots))
	for i, s := range d.Snapshots {
		if snaps[i], err = rd.snapshot(s); err != nil {
			return nil, fmt.Errorf("MCP snapshot %d: %w", i, err)
		}
	}
	if t := d.Throttling; t != nil && (t.Requests < 0 || t.Throttled < 0 || t.StillThrottled < 0) {
		return nil, errors.New("the throttling counts are negative")
	}
	out := &probe.Outcome{Result: probe.Result{
		Recording: recs[d.Primary], Stats: d.Stats, Notes: d.Notes, Unfilled: d.Unfilled, Throttling: d.Throttling,
	}}
	if out.MCP, err = pick(snaps, d.MCP); err != nil {
		return nil, fmt.Errorf("MCP snapshot: %w", err)
	}
	if len(d.Callers) != len(d.Views) {
		return nil, fmt.Errorf("%d callers for %d views", len(d.Callers), len(d.Views))
	}
	for i, v := range d.Views {
		// The callers are listed in rank order, which the file keeps in
		// place of the rank.
		view := probe.View{Caller: d.Callers[i]}
		view.Rank = i
		if view.Name != v.Name {
			return nil, fmt.Errorf("view %q: its caller is %q", v.Name, view.Name)
		}
		if view.Recording, err = pick(recs, v.Recording); err != nil {
			return nil, fmt.Errorf("view %q: %w", v.Name, err)
		}
		if view.MCP, err = pick(snaps, v.MCP); err != nil {
			return nil, fmt.Errorf("view %q: %w", v.Name, err)
		}
		out.Views = append(out.Views, view)
	}
	if b := d.BasePath; b != nil {
		out.BasePath = &probe.BasePath{Path: b.Path, How: b.How, Mismatch: b.Mismatch}
	}
	if out.Spec, err = loadSpec(d.OpenAPI); err != nil {
		return nil, err
	}
	if d.OpenAPI != nil {
		out.SpecDiscovery = d.OpenAPI.Discovery
	}
	out.Caller = d.Caller
	out.Caller.Rank = max(0, len(d.Callers)-1)
	rec := &scan.Recording{Target: target, Outcome: out, TLSUnverified: d.TLSUnverified}
	if a := d.Active; a != nil {
		out.Active = &probe.ActiveOutcome{Allow: a.Allow, Confirmed: a.Confirmed, Planned: a.Planned, Sent: a.Sent}
	}
	if t := d.Trial; t != nil {
		if out.Trial, err = rd.trial(t); err != nil {
			return nil, fmt.Errorf("trial: %w", err)
		}
	}
	return rec, nil
}

// pick is list[*at], nil when at is.
func pick[T any](list []*T, at *int) (*T, error) {
	if at == nil {
		return nil, nil
	}
	if *at < 0 || *at >= len(list) {
		return nil, fmt.Errorf("index %d of %d", *at, len(list))
	}
	return list[*at], nil
}

// loadSpec loads the embedded document as the scan loaded it, after
// checking that its text is the one recorded.
func loadSpec(d *specData) (*spec.Document, error) {
	if d == nil {
		return nil, nil
	}
	sum := sha256.Sum256([]byte(d.Text))
	if hex.EncodeToString(sum[:]) != d.SHA256 {
		return nil, fmt.Errorf("the embedded OpenAPI document %s does not match its SHA-256; the file was edited", d.Source)
	}
	doc, err := spec.Load([]byte(d.Text), d.Source, d.File)
	if err != nil || doc == nil {
		return nil, fmt.Errorf("the embedded OpenAPI document %s does not load: %v", d.Source, err)
	}
	// The house rules on the document's text read it (checks.NeedsSpecText).
	doc.Raw = []byte(d.Text)
	return doc, nil
}

func (rd *reader) trial(d *trialData) (*exchange.TrialPlan, error) {
	out := &exchange.TrialPlan{Tasks: d.Tasks, Reset: d.Reset, Notes: d.Notes, PlanOnly: d.PlanOnly, Sent: d.Sent}
	for _, r := range d.Runs {
		if len(r.Roles) != len(r.Exchanges) {
			return nil, fmt.Errorf("run of task %d: %d roles for %d exchanges", r.Task, len(r.Roles), len(r.Exchanges))
		}
		run := exchange.TrialRun{Task: r.Task, Player: r.Player, Resource: r.Resource, Identity: r.Identity, Steps: r.Steps, Roles: r.Roles,
			CreatedAt: r.CreatedAt, NoCleanup: r.NoCleanup}
		for _, i := range r.Exchanges {
			x, err := rd.exchange(i)
			if err != nil {
				return nil, err
			}
			run.Exchanges = append(run.Exchanges, x)
		}
		out.Runs = append(out.Runs, run)
	}
	return out, nil
}

func (rd *reader) exchange(i int) (*exchange.Exchange, error) {
	if i < 0 || i >= len(rd.exchanges) {
		return nil, fmt.Errorf("exchange %d of %d", i, len(rd.exchanges))
	}
	return rd.exchanges[i], nil
}

func (rd *reader) exchangeRef(at *int) (*exchange.Exchange, error) {
	if at == nil {
		return nil, nil
	}
	return rd.exchange(*at)
}

func (rd *reader) exchangeRecording(r recordingData) (*exchange.Recording, error) {
	out := &exchange.Recording{Target: r.Target, Exchanges: []*exchange.Exchange{}}
	for _, i := range r.Exchanges {
		x, err := rd.exchange(i)
		if err != nil {
			return nil, err
		}
		out.Exchanges = append(out.Exchanges, x)
	}
	if r.Samples != nil {
		out.Samples = []string{}
	}
	for _, s := range r.Samples {
		out.Samples = append(out.Samples, string(s))
	}
	return out, nil
}

// unixNanos is t as Exchange.Started holds it, or 0 (not known) for a time
// that int64 nanoseconds cannot hold (before 1678 or after 2262): a foreign
// or edited file may give one, and it must not become another time.
func unixNanos(t time.Time) int64 {
	if y := t.Year(); y <= 1678 || y >= 2262 {
		return 0
	}
	return t.UnixNano()
}

func fromEntry(e entry) (*exchange.Exchange, error) {
	d := e.Data
	x := &exchange.Exchange{
		ID: d.ID, Purpose: d.Purpose, Source: string(d.Source), BasedOn: string(d.BasedOn),
		Depth: d.Depth, Identity: d.Identity, Err: string(d.Error), SharedWith: fromUses(d.SharedWith),
		Duration: time.Duration(math.Round(e.Time*1000)) * time.Microsecond,
	}
	if t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime); err == nil {
		x.Started = unixNanos(t)
	}
	var err error
	if x.Request, err = fromRequest(e.Request, d); err != nil {
		return nil, err
	}
	if d.NoResponse {
		return x, nil
	}
	if x.Response, err = fromResponse(e.Response); err != nil {
		return nil, err
	}
	x.Response.Truncated, x.Response.Dropped, x.Response.Unread, x.Response.Redactions = d.Truncated, d.Dropped, d.Unread, d.Redactions
	if len(d.AfterHead) > exchange.MaxAfterHead || d.AfterHeadSize < int64(len(d.AfterHead)) {
		return nil, fmt.Errorf("entry %s: %d bytes after a HEAD response, of %d sent: at most %d are kept", d.ID, len(d.AfterHead), d.AfterHeadSize, exchange.MaxAfterHead)
	}
	if d.AfterHeadSize > 0 {
		x.AfterHead = &exchange.AfterHead{Bytes: []byte(d.AfterHead), Size: d.AfterHeadSize}
	}
	if t := d.Throttled; t != nil {
		h, err := fromHeaders(t.Headers)
		if err != nil {
			return nil, fmt.Errorf("entry %s: throttled answer: %w", d.ID, err)
		}
		x.Response.Replaced = &exchange.ThrottledAnswer{Status: t.Status, Header: h}
		if !x.Response.Replaced.Within() {
			return nil, fmt.Errorf("entry %s: the throttled answer kept is a %d with more than its Retry-After and Content-Type (at most %d values of %d bytes each)",
				d.ID, t.Status, exchange.MaxThrottledValues, exchange.MaxThrottledValueSize)
		}
	}
	// A HAR from elsewhere, or from a version that kept them, may hold the
	// credentials a server exposed: a replay judges and shows their
	// placeholders, as it would a recording made now.
	exchange.RedactResponseCredentials(x)
	return x, nil
}

func fromUses(us []use) []exchange.Use {
	var out []exchange.Use
	for _, u := range us {
		out = append(out, exchange.Use{Purpose: u.Purpose, BasedOn: string(u.BasedOn)})
	}
	return out
}

func fromRequest(r request, d entryData) (exchange.Request, error) {
	h, err := fromHeaders(r.Headers)
	if err != nil {
		return exchange.Request{}, err
	}
	out := exchange.Request{Method: r.Method, URL: r.URL, Header: h}
	if d.URL != "" {
		out.URL = string(d.URL)
	}
	if p := r.PostData; p != nil {
		out.Body = p.Text
		if p.Encoding == "base64" {
			b, err := base64.StdEncoding.DecodeString(p.Text)
			if err != nil {
				return exchange.Request{}, fmt.Errorf("request body: %w", err)
			}
			out.Body = string(b)
		}
	}
	opening, err := fromSessionRequests(d.SessionStart)
	if err != nil {
		return exchange.Request{}, err
	}
	out.SetSessionStart(opening)
	return out, nil
}

func fromSessionRequests(rs []sessionRequest) ([]exchange.Request, error) {
	var out []exchange.Request
	for _, r := range rs {
		h, err := fromHeaders(r.Headers)
		if err != nil {
			return nil, err
		}
		req := exchange.Request{Method: r.Method, URL: string(r.URL), Header: h}
		if r.Body != nil {
			req.Body = string(*r.Body)
		}
		opening, err := fromSessionRequests(r.Start)
		if err != nil {
			return nil, err
		}
		req.SetSessionStart(opening)
		out = append(out, req)
	}
	return out, nil
}

func fromResponse(r response) (*exchange.Response, error) {
	h, err := fromHeaders(r.Headers)
	if err != nil {
		return nil, err
	}
	out := &exchange.Response{Status: r.Status, Proto: r.HTTPVersion, Header: h, BodySize: r.Content.Size}
	if t := r.Content.Text; t != nil {
		out.Body = []byte(*t)
		if r.Content.Encoding == "base64" {
			if out.Body, err = base64.StdEncoding.DecodeString(*t); err != nil {
				return nil, fmt.Errorf("response body: %w", err)
			}
		}
		if out.Body == nil {
			out.Body = []byte{}
		}
	}
	return out, nil
}

func fromHeaders(lines []header) (http.Header, error) {
	h := http.Header{}
	for _, l := range lines {
		v := l.Value
		if l.Base64 != "" {
			b, err := base64.StdEncoding.DecodeString(l.Base64)
			if err != nil {
				return nil, fmt.Errorf("header %s: %w", l.Name, err)
			}
			v = string(b)
		}
		// Set by the name as written: the recording may hold a name that
		// is not in canonical form, and Add would change it.
		h[l.Name] = append(h[l.Name], v)
	}
	return h, nil
}

func (rd *reader) snapshot(d snapshotData) (*mcp.Snapshot, error) {
	calls := make([]*mcp.Call, len(d.Calls))
	for i, c := range d.Calls {
		x, err := rd.exchangeRef(c.Exchange)
		if err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		calls[i] = &mcp.Call{Method: c.Method, Era: c.Era, Exchange: x, Message: toMessage(c.Message), ParseError: c.ParseError, Connection: c.Connection}
	}
	refs := func(is []int) ([]*mcp.Call, error) {
		if is == nil {
			return nil, nil
		}
		out := []*mcp.Call{}
		for _, i := range is {
			c, err := pick(calls, &i)
			if err != nil {
				return nil, fmt.Errorf("call %w", err)
			}
			out = append(out, c)
		}
		return out, nil
	}
	s := &mcp.Snapshot{
		Endpoint: d.Endpoint, Identity: d.Identity, Verdict: d.Verdict,
		ServerInfo: rawBytes(d.ServerInfo), Capabilities: rawBytes(d.Capabilities),
		SessionID: d.SessionID, Catalog: d.Catalog, Notes: d.Notes,
	}
	var err error
	if s.SessionDemanded, err = pick(calls, d.SessionDemanded); err != nil {
		return nil, fmt.Errorf("session demanded: %w", err)
	}
	if s.Calls, err = refs(d.Called); err != nil {
		return nil, err
	}
	if s.ForeignOrigin, err = pick(calls, d.ForeignOrigin); err != nil {
		return nil, fmt.Errorf("foreign origin: %w", err)
	}
	for _, i := range d.ResourceMetadata {
		x, err := rd.exchange(i)
		if err != nil {
			return nil, fmt.Errorf("resource metadata: %w", err)
		}
		s.ResourceMetadata = append(s.ResourceMetadata, x)
	}
	for _, ld := range d.Listings {
		l := mcp.Listing{Label: ld.Label, Complete: ld.Complete, Problem: ld.Problem}
		if l.Failed, err = pick(calls, ld.Failed); err != nil {
			return nil, fmt.Errorf("listing %q: %w", ld.Label, err)
		}
		for _, p := range ld.Pages {
			page := mcp.Page{Cursor: p.Cursor, NextCursor: p.NextCursor, Raw: rawBytes(p.Raw)}
			if page.Call, err = pick(calls, p.Call); err != nil {
				return nil, fmt.Errorf("listing %q: %w", ld.Label, err)
			}
			l.Pages = append(l.Pages, page)
		}
		for _, t := range ld.Tools {
			l.Tools = append(l.Tools, mcp.Tool{
				Name: t.Name, Title: t.Title, Description: t.Description,
				InputSchema: rawBytes(t.InputSchema), OutputSchema: rawBytes(t.OutputSchema),
				Annotations: t.Annotations, Meta: rawBytes(t.Meta), Raw: rawBytes(t.Raw),
				Page: t.Page, Index: t.Index, NameValid: t.NameValid,
			})
		}
		s.Listings = append(s.Listings, l)
	}
	for _, o := range d.Others {
		ev := mcp.EndpointVerdict{Endpoint: o.Endpoint, Verdict: o.Verdict}
		if ev.Calls, err = refs(o.Calls); err != nil {
			return nil, err
		}
		s.Others = append(s.Others, ev)
	}
	return s, nil
}

func toMessage(d *messageData) *mcp.Message {
	if d == nil {
		return nil
	}
	m := &mcp.Message{ID: rawBytes(d.ID), Method: d.Method, Result: rawBytes(d.Result)}
	if e := d.Error; e != nil {
		m.Error = &mcp.RPCError{Code: e.Code, Message: e.Message, Data: rawBytes(e.Data)}
	}
	return m
}
