package problemjson

import (
	"context"
	"fmt"
	"net/http"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/checks/internal/conneg"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/finding"
)

// QueryDecoding checks that a collection decodes a query the same way
// however a client library wrote it.
type QueryDecoding struct{ probes }

func (QueryDecoding) Meta() checks.Meta {
	return checks.Meta{
		ID:       "problem-json-query-decoding",
		Since:    checks.FirstRelease,
		Family:   checks.FamilyProblemJSON,
		Title:    "A collection decodes an encoded colon and a valueless parameter like any client writes them",
		Severity: finding.SeverityWarning,
		SpecRefs: []finding.SpecRef{
			{Doc: "RFC 3986", Section: "2.1", URL: "https://www.rfc-editor.org/rfc/rfc3986#section-2.1"},
			{Doc: "RFC 3986", Section: "6.2.2", URL: "https://www.rfc-editor.org/rfc/rfc3986#section-6.2.2"},
			{Doc: "URL Standard", Section: "5.1", Level: "readiness", URL: "https://url.spec.whatwg.org/#urlencoded-parsing"},
		},
		Help: `Client libraries write the same query differently: ` + "`url.Values`" + `,
` + "`URLSearchParams`" + ` and most form encoders send the colon of a cursor as ` + "`%3A`" + `,
others leave it as it is, and a flag is often sent without a value. Percent-
decoding ` + "`%3A`" + ` gives ` + "`:`" + ` (RFC 3986 §2.1), and the form-urlencoded parser of the
URL Standard reads ` + "`?debug&limit=1`" + ` as ` + "`debug`" + ` with an empty value followed by
` + "`limit=1`" + `. A server with several query decoders that disagree answers one
spelling and not the other: a resume cursor that returns an empty page, a
` + "`limit`" + ` that stops working when a flag comes first. The scan compares, on
each collection, ` + "`?<param>=a%3Ab`" + ` with ` + "`?<param>=a:b`" + ` (same status and
item count), and, where ` + "`?limit=1`" + ` does limit the items,
` + "`?debug&limit=1`" + ` with ` + "`?limit=1`" + `. A difference is reported only when
it holds on two more sends of both requests.

**How to fix:** decode every query with one decoder that percent-decodes
names and values and accepts a parameter without ` + "`=`" + `.`,
	}
}

func (c QueryDecoding) Run(ctx context.Context, in *checks.Input) ([]finding.Finding, error) {
	var out []finding.Finding
	judged := 0
	for _, s := range firstJSONSamplePerShape(in.Samples) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, p := range queryPairs {
			a, b := p.pair(in.Index, s)
			if a == nil || b == nil {
				continue
			}
			judged++
			if !conneg.Consistent(in.Index, a, b, queryVerdict) {
				continue
			}
			msg := fmt.Sprintf("%s answered %s, but %s answered %s; %s",
				describe(a), answerOf(a), describe(b), answerOf(b), p.why)
			out = append(out, checks.New(c.Meta(), p.subject, msg,
				evidence(a, answerOf(a), answerOf(b)), evidence(b, answerOf(b), "")))
		}
	}
	if judged == 0 {
		return nil, checks.Skip("no JSON collection answered both spellings of a query")
	}
	return out, nil
}

// queryPair is a query sent in two spellings that must be decoded alike.
type queryPair struct {
	subject string
	why     string
	pair    func(ix *exchange.Index, s *exchange.Exchange) (a, b *exchange.Exchange)
}

var queryPairs = []queryPair{
	{"encoded colon", "a:b and a%3Ab are the same value once percent-decoded", func(ix *exchange.Index, s *exchange.Exchange) (a, b *exchange.Exchange) {
		return answered(ix.Get(PurposeColonCursor, s.Request.URL), ix.Get(PurposePlainColonCursor, s.Request.URL))
	}},
	{"valueless parameter", "a parameter without a value must not change how limit is read", func(ix *exchange.Index, s *exchange.Exchange) (a, b *exchange.Exchange) {
		limited := ix.Get(PurposeLimitOnly, s.Request.URL)
		if !honoursLimit(s, limited) {
			return nil, nil
		}
		return answered(ix.Get(PurposeValuelessFlag, s.Request.URL), limited)
	}},
}

// answered returns the pair when both got a response that is no 5xx: a
// failure is problem-json-server-error's to report, once.
func answered(a, b *exchange.Exchange) (*exchange.Exchange, *exchange.Exchange) {
	for _, x := range []*exchange.Exchange{a, b} {
		if x == nil || x.Response == nil || x.Response.Status >= 500 {
			return nil, nil
		}
	}
	return a, b
}

var queryRepeatsKey = checks.NewKey[[]exchange.PlannedRequest]()

// planQueryRepeats is the family's follow-up round: both requests of every
// pair whose first answers differ are sent twice more.
func planQueryRepeats(in *checks.PlanInput) []exchange.PlannedRequest {
	return checks.Memo(in, queryRepeatsKey, func() []exchange.PlannedRequest {
		ix := exchange.NewIndex(&exchange.Recording{Exchanges: in.Probes})
		var out []exchange.PlannedRequest
		for _, s := range firstJSONSamplePerShape(in.Samples) {
			for _, p := range queryPairs {
				if a, b := p.pair(ix, s); a != nil && b != nil && queryVerdict(a, b) != "" {
					out = append(out, conneg.PlanRepeat(a, 2, 1+conneg.Repeats)...)
					out = append(out, conneg.PlanRepeat(b, 2, 1+conneg.Repeats)...)
				}
			}
		}
		return out
	})
}

// honoursLimit reports a collection shown to apply limit: ?limit=1 gave at
// most one item where the sample gave several. Only there can a valueless
// parameter be shown to break it.
func honoursLimit(sample, limited *exchange.Exchange) bool {
	all, ok := itemCount(sample)
	n, limitedOK := itemCount(limited)
	return ok && limitedOK && all > 1 && n <= 1
}

// queryVerdict is the difference between two answers: status, and for a
// 2xx JSON collection, the number of items.
func queryVerdict(a, b *exchange.Exchange) string {
	if a.Response == nil || b.Response == nil {
		return ""
	}
	if sa, sb := answerOf(a), answerOf(b); sa != sb {
		return sa + " | " + sb
	}
	return ""
}

// answerOf sums an answer up for the comparison: its status, and the item
// count of a 2xx collection.
func answerOf(x *exchange.Exchange) string {
	if x.Response == nil {
		return "no response"
	}
	if n, ok := itemCount(x); ok {
		return fmt.Sprintf("%d with %d items", x.Response.Status, n)
	}
	return fmt.Sprint(x.Response.Status)
}

// itemCount is the number of items of a whole 2xx GET answer that is a
// collection.
func itemCount(x *exchange.Exchange) (int, bool) {
	if x == nil || x.Response == nil {
		return 0, false
	}
	r := x.Response
	if x.Request.Method != http.MethodGet || r.Status < 200 || r.Status > 299 || !r.Whole() {
		return 0, false
	}
	its, ok := items(r.HAL())
	return len(its), ok
}
