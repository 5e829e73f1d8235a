package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/finding"
)

// Key names one finding the way the hand list does: the server, the check,
// and the method, target and subject of the finding's first evidence.
type Key struct {
	Server, Check, Method, Path, Subject string
}

// KeyOf is the key of a finding of server.
func KeyOf(server string, f *finding.Finding) Key {
	return Key{Server: server, Check: f.CheckID, Method: f.PrimaryMethod(), Path: RequestTarget(f.PrimaryURL()), Subject: f.Subject}
}

// RequestTarget is a URL's path and query, as the oracle's rows name what
// they requested.
func RequestTarget(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.RequestURI()
}

// Oracle verdicts on one finding.
type Oracle int

const (
	Undecided    Oracle = iota
	Confirmed           // a row shows the defect
	Contradicted        // every row that judges it shows the server conforms
)

// decides reports whether the row judges the finding f.
func (row Row) decides(f *finding.Finding) bool {
	if row.Check != f.CheckID || row.Defect == nil {
		return false
	}
	if row.Tool != "" && f.Subject != "" && row.Tool != f.Subject {
		return false
	}
	if row.Scope == "site" {
		return true
	}
	if row.Path != RequestTarget(f.PrimaryURL()) || (row.Method != "" && row.Method != f.PrimaryMethod()) {
		return false
	}
	if row.Status != 0 && len(f.Evidence) > 0 && f.Evidence[0].Status != 0 {
		return row.Status == f.Evidence[0].Status
	}
	return true
}

// Classify judges a finding by the oracle rows that decide it: confirmed
// if any shows the defect, contradicted if every one shows the server
// conforms; the row returned is the one that says so.
func Classify(rows []Row, f *finding.Finding) (Oracle, *Row) {
	var conforming *Row
	for i := range rows {
		if !rows[i].decides(f) {
			continue
		}
		if *rows[i].Defect {
			return Confirmed, &rows[i]
		}
		if conforming == nil {
			conforming = &rows[i]
		}
	}
	if conforming != nil {
		return Contradicted, conforming
	}
	return Undecided, nil
}

// Missed are the oracle's defects that no finding of the same check
// reports, on the same target unless the row is about the whole site.
func Missed(rows []Row, findings []finding.Finding) []Row {
	var out []Row
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Defect == nil || !*row.Defect {
			continue
		}
		key := row.Check + " " + row.Method + " " + row.Path
		if row.Scope == "site" {
			key = row.Check
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		reported := slices.ContainsFunc(findings, func(f finding.Finding) bool {
			return f.CheckID == row.Check && (row.Scope == "site" ||
				(RequestTarget(f.PrimaryURL()) == row.Path && f.PrimaryMethod() == row.Method))
		})
		if !reported {
			out = append(out, row)
		}
	}
	return out
}

// Decision is what the matrix holds of one finding: true or false, by an
// oracle row or by hand, or a problem that leaves it undecided.
type Decision struct {
	// True is whether the finding is true; meaningful when Problem is "".
	True bool
	// By is "oracle" or "hand".
	By string
	// Curl shows the finding: the deciding row's or entry's line.
	Curl string
	// Cause is the hand entry's, for a finding decided by hand.
	Cause string
	// Problem says why the finding is not decided, and what to do about
	// it; "" when it is.
	Problem string
}

// Judge decides the findings of one server by its oracle record and its
// hand entries, and remembers which entries were used.
type Judge struct {
	server string
	rows   []Row
	hand   map[Key]Judged
	used   map[Key]bool
}

// NewJudge judges findings of server by rec and the hand entries given
// (entries of other servers are ignored).
func NewJudge(server string, rec Record, judged []Judged) *Judge {
	j := &Judge{server: server, rows: rec.Rows, hand: map[Key]Judged{}, used: map[Key]bool{}}
	for _, e := range judged {
		if e.Server == server {
			j.hand[e.Key()] = e
		}
	}
	return j
}

// Decide decides one finding. base is the server's URL in this run, which
// a hand entry's curl line writes $BASE.
func (j *Judge) Decide(f *finding.Finding, base string) Decision {
	key := KeyOf(j.server, f)
	entry, byHand := j.hand[key]
	if byHand {
		j.used[key] = true
	}
	if byHand && entry.Verdict != VerdictTrue && entry.Verdict != VerdictFalse {
		return Decision{Problem: fmt.Sprintf("the %s entry's verdict is %q: say \"true\" or \"false\"", JudgedFile, entry.Verdict)}
	}
	if byHand && (entry.Cause == "" || entry.Curl == "") {
		return Decision{Problem: fmt.Sprintf("the %s entry has no cause or no curl line", JudgedFile)}
	}
	verdict, row := Classify(j.rows, f)
	switch {
	case verdict == Confirmed && byHand:
		return Decision{Problem: fmt.Sprintf("the oracle confirms it (%s); remove its %s entry", row.What, JudgedFile)}
	case verdict == Confirmed:
		return Decision{True: true, By: "oracle", Curl: row.Curl}
	case verdict == Contradicted && !byHand:
		return Decision{Problem: fmt.Sprintf("a false positive: the oracle shows the server conforms (%s: %s); fix the scanner, or, until then, add to %s its cause:\n%s",
			row.What, row.Curl, JudgedFile, entryFor(key, VerdictFalse, f, base))}
	case verdict == Contradicted && entry.Verdict == VerdictTrue:
		return Decision{Problem: fmt.Sprintf("the %s entry says true, but the oracle shows the server conforms (%s: %s); correct the oracle or the entry", JudgedFile, row.What, row.Curl)}
	case byHand:
		return Decision{True: entry.Verdict == VerdictTrue, By: "hand", Curl: entry.Curl, Cause: entry.Cause}
	}
	return Decision{Problem: fmt.Sprintf("undecided: no oracle row decides it and %s has no entry; run the curl line, decide, and add (verdict \"true\" or \"false\", and the cause in one sentence):\n%s",
		JudgedFile, entryFor(key, "true or false", f, base))}
}

// Unused are the hand entries no finding decided: stale ones, which fail
// the comparison so that the list stays that of today's findings.
func (j *Judge) Unused() []Judged {
	var out []Judged
	for k, e := range j.hand {
		if !j.used[k] {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b Judged) int {
		return strings.Compare(a.Check+" "+a.Method+" "+a.Path+" "+a.Subject, b.Check+" "+b.Method+" "+b.Path+" "+b.Subject)
	})
	return out
}

// entryFor is the hand entry to add for a finding, as one JSON line.
func entryFor(k Key, verdict string, f *finding.Finding, base string) string {
	curl := ""
	if len(f.Evidence) > 0 {
		curl = strings.ReplaceAll(f.Evidence[0].Curl, base, `"$BASE"`)
	}
	raw, _ := Marshal(Judged{Server: k.Server, Check: k.Check, Method: k.Method, Path: k.Path, Subject: k.Subject,
		Verdict: verdict, Cause: "…", Curl: curl}, "")
	return "    " + strings.TrimSuffix(string(raw), "\n")
}

// Marshal is the JSON the matrix's files are written in: curl lines keep
// their & and < as they are, and indent is the indentation, "" for one line.
func Marshal(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Tally counts a server's findings by check as the results file keeps them.
type Tally struct {
	outcomes map[string]*CheckOutcome
}

// Add counts one finding and its decision.
func (t *Tally) Add(f *finding.Finding, d Decision) {
	if t.outcomes == nil {
		t.outcomes = map[string]*CheckOutcome{}
	}
	o := t.outcomes[f.CheckID]
	if o == nil {
		o = &CheckOutcome{Check: f.CheckID, Severity: f.Severity.String()}
		t.outcomes[f.CheckID] = o
	}
	if o.Curl == "" && d.Problem == "" {
		o.Curl = d.Curl
	}
	o.Count++
	switch {
	case d.Problem != "":
	case d.True:
		o.True++
	default:
		o.False++
	}
	if at := findingAt(f); !slices.Contains(o.At, at) {
		o.At = append(o.At, at)
	}
}

// findingAt is where a finding is, as the results file lists it: the
// request it was seen on, or, for a finding about the document alone,
// which has no request, its place in the document.
func findingAt(f *finding.Finding) string {
	if f.PrimaryURL() == "" && f.Location != nil && f.Location.Pointer != "" {
		return "document #" + f.Location.Pointer
	}
	return f.PrimaryMethod() + " " + RequestTarget(f.PrimaryURL())
}

// Outcomes are the checks counted, by check ID.
func (t *Tally) Outcomes() []CheckOutcome {
	out := make([]CheckOutcome, 0, len(t.outcomes))
	for _, o := range t.outcomes {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b CheckOutcome) int { return strings.Compare(a.Check, b.Check) })
	return out
}

// Precision is true/(true+false) over outcomes, in percent, and whether
// any finding was decided at all.
func Precision(outcomes []CheckOutcome) (float64, bool) {
	t, f := 0, 0
	for _, o := range outcomes {
		t += o.True
		f += o.False
	}
	if t+f == 0 {
		return 0, false
	}
	return 100 * float64(t) / float64(t+f), true
}

// MinPrecision is the least share of true findings the matrix accepts, in
// percent.
const MinPrecision = 98.0
