package probe

import "github.com/agentready/agentready/internal/linkheader"

// Link is one link-value of an RFC 8288 Link header.
type Link struct {
	// URI is the target as written between the angle brackets, unresolved.
	URI string
	// Rels are the relation types of the first rel parameter. Registered
	// types are lower-cased (RFC 8288 §2.1.1 compares them case-insensitively);
	// extension types (URIs) are kept as written.
	Rels []string
	// Params holds every parameter by lower-cased name; the first occurrence
	// of a name wins, as §3 asks of rel and is the safe choice for the rest.
	Params map[string]string
}

// ParseLinkHeader parses the values of every Link header line with the one
// RFC 8288 parser the checks use too, and drops links with an anchor
// parameter: their context is another resource, which a crawler that does
// not track anchors must not confuse with the response itself (§3.2).
// Malformed link-values are skipped; parsing never fails and is bounded.
func ParseLinkHeader(values []string) []Link {
	var links []Link
	for _, l := range linkheader.Parse(values) {
		if !l.Anchored() {
			links = append(links, Link{URI: l.Target, Rels: l.Rels, Params: l.Params})
		}
	}
	return links
}
