// Package hypermedia holds what the hal, hal-forms and affordance families
// share: which responses each judges, the bounded order-preserving decoding
// of their bodies, the HAL-FORMS fetch they plan, and the way a rule's issues
// become findings with a JSON pointer to the offending member.
package hypermedia

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/halview"
	"github.com/agentready/agentready/internal/jsonorder"
)

// Media types.
const (
	MediaHAL       = halview.MediaHAL
	MediaHALLegacy = halview.MediaHALLegacy
	MediaHALForms  = halview.MediaHALForms
)

// PurposeFetch is the planned GET that asks a resource for HAL-FORMS.
const PurposeFetch = "hal-forms/fetch"

// IsHAL reports the HAL media types, including the older vnd spelling that
// the HAL-FORMS examples use.
func IsHAL(mt string) bool { return halview.IsHAL(mt) }

// Doc is one response body decoded for judging.
type Doc struct {
	X   *exchange.Exchange
	Doc *jsonorder.Document
	Err error // set when the body is not JSON or exceeds the bounds
	// HAL is the body's controls: its resources, links and templates.
	HAL *halview.View
}

// Root returns the root value, or nil when decoding failed.
func (d *Doc) Root() *jsonorder.Value {
	if d.Doc == nil {
		return nil
	}
	return d.Doc.Root
}

// Judgeable reports a successful GET whose body was kept whole.
func Judgeable(x *exchange.Exchange) bool {
	r := x.Response
	return r != nil && x.Request.Method == http.MethodGet && r.Status >= 200 && r.Status < 300 &&
		!r.Truncated && !r.Dropped && len(r.Body) > 0
}

// Decode returns an exchange's body as decoded once for the scan (see
// exchange.Response.HAL).
func Decode(x *exchange.Exchange) *Doc {
	v := x.Response.HAL()
	return &Doc{X: x, Doc: v.Doc, Err: v.Err, HAL: v}
}

// Read is Decode for the passes that read every page of a crawl once and
// keep only what they derive: the tree is not kept on the exchange, so
// memory does not hold one per page (see exchange.Response.ReadHAL).
func Read(x *exchange.Exchange) *Doc {
	v := x.Response.ReadHAL()
	return &Doc{X: x, Doc: v.Doc, Err: v.Err, HAL: v}
}

// MaxDocsPerShape bounds the documents of one path shape that are decoded and
// judged. Resources of one shape come from one serializer, so a few dozen
// show its defects; decoding all of a large crawl would make memory grow
// with it, since the decoded trees are kept for every check of the family.
const MaxDocsPerShape = 32

var docsKey = checks.NewKey[[]*Doc]()

// Docs decodes, once per Input, the judgeable exchanges that keep selects, at
// most MaxDocsPerShape per path shape and purpose (in recording order, so the
// choice is deterministic). key names the selection for the memo.
func Docs(in *checks.Input, key string, keep func(*exchange.Exchange) bool) []*Doc {
	return checks.Memo(in, docsKey.With(key), func() []*Doc {
		var out []*Doc
		perShape := map[string]int{}
		for _, x := range in.Recording.Exchanges {
			if !Judgeable(x) || !keep(x) {
				continue
			}
			k := x.Purpose + "\x00" + ShapeOf(x)
			if perShape[k] >= MaxDocsPerShape {
				continue
			}
			perShape[k]++
			out = append(out, Decode(x))
		}
		return out
	})
}

// HALDocs are the crawl responses served as HAL.
func HALDocs(in *checks.Input) []*Doc {
	return Docs(in, "hal", func(x *exchange.Exchange) bool {
		return x.Purpose == exchange.PurposeCrawl && IsHAL(x.Response.MediaType())
	})
}

// HALFormsDocs are the responses served as HAL-FORMS, whether the crawl got
// one or the planned fetch did. A fetch answered with another type means the
// resource has no HAL-FORMS representation, which is not a defect.
func HALFormsDocs(in *checks.Input) []*Doc {
	return Docs(in, "hal-forms", func(x *exchange.Exchange) bool {
		return (x.Purpose == exchange.PurposeCrawl || x.Purpose == PurposeFetch) &&
			x.Response.MediaType() == MediaHALForms
	})
}

// JSONDocs are the crawl responses of any JSON type.
func JSONDocs(in *checks.Input) []*Doc {
	return Docs(in, "json", func(x *exchange.Exchange) bool {
		return x.Purpose == exchange.PurposeCrawl && exchange.IsJSONMediaType(x.Response.MediaType())
	})
}

// StateOf reads a resource's lifecycle state: its "state" member, else its
// "status" member, when that is a string. Numeric statuses (HTTP codes in
// problem documents) are not states.
func StateOf(v *jsonorder.Value) (member, state string) {
	for _, name := range []string{"state", "status"} {
		if s, ok := v.Get(name).Str(); ok && s != "" {
			return name, s
		}
	}
	return "", ""
}

// Issue is one problem a rule found, before it becomes a finding.
type Issue struct {
	X       *exchange.Exchange
	Pointer string // RFC 6901, to the offending member
	Subject string
	Message string
	// Value is the offending member, rendered as the excerpt.
	Value *jsonorder.Value
	// Expected and Actual are short, for the evidence.
	Expected, Actual string
	// Related is a second exchange that proves the issue, when one does.
	Related *exchange.Exchange
	// Adjust, when set, rewrites the finding built from the issue (a lower
	// severity, a qualified message).
	Adjust func(finding.Finding) finding.Finding
}

// maxPerExchange bounds the findings one check raises on one response; a
// collection of 500 broken items is one problem, not 500.
const maxPerExchange = 10

// Findings turns issues into findings of check m.
func Findings(m checks.Meta, issues []Issue) []finding.Finding {
	var out []finding.Finding
	per := map[*exchange.Exchange]int{}
	for _, is := range issues {
		per[is.X]++
		if per[is.X] > maxPerExchange {
			continue
		}
		ev := Evidence(is.X, is.Pointer)
		ev.Expected, ev.Actual = is.Expected, is.Actual
		if is.Value != nil {
			ev.Excerpt = Render(is.Value, checks.ExcerptLimit)
		}
		evs := []finding.Evidence{ev}
		if is.Related != nil {
			evs = append(evs, Evidence(is.Related, ""))
		}
		subject := is.Subject
		if subject == "" {
			subject = is.Pointer
		}
		f := checks.New(m, subject, is.Message, evs...)
		if is.Adjust != nil {
			f = is.Adjust(f)
		}
		out = append(out, f)
	}
	return out
}

// Evidence is checks.Evidence with the headers that matter to hypermedia and
// the pointer.
func Evidence(x *exchange.Exchange, pointer string) finding.Evidence {
	ev := checks.Evidence(x, []string{"Accept"}, []string{"Content-Type", "ETag", "Link"})
	ev.JSONPointer = pointer
	return ev
}

// Render writes v as compact JSON, cut at limit bytes.
func Render(v *jsonorder.Value, limit int) string {
	var b bytes.Buffer
	render(&b, v, limit)
	s := b.String()
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return strings.ToValidUTF8(s, "")
}

func render(b *bytes.Buffer, v *jsonorder.Value, limit int) {
	if b.Len() > limit {
		return
	}
	switch v.Kind {
	case jsonorder.Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			render(b, it, limit)
		}
		b.WriteByte(']')
	case jsonorder.Object:
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString((&jsonorder.Value{Kind: jsonorder.String, Text: m.Key}).Literal())
			b.WriteByte(':')
			render(b, m.Value, limit)
		}
		b.WriteByte('}')
	case jsonorder.Null:
		b.WriteString("null")
	default:
		b.WriteString(v.Literal())
	}
}
