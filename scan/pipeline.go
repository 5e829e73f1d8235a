package scan

import (
	"cmp"
	"slices"

	"github.com/agentready/agentready/exchange"
	"github.com/agentready/agentready/finding"
)

// stage is one step of post-processing. The order of stages is fixed in
// Process and nowhere else.
type stage func([]finding.Finding) []finding.Finding

// Process runs the post-processing pipeline: fingerprint, de-duplicate, sort.
// Later stages (ignores, baseline, severity overrides) slot in here.
func Process(fs []finding.Finding) []finding.Finding {
	for _, s := range []stage{fingerprint, dedupe, sortFindings} {
		fs = s(fs)
	}
	return fs
}

func fingerprint(fs []finding.Finding) []finding.Finding {
	for i := range fs {
		f := &fs[i]
		shape := exchange.PathShape(exchange.PathOf(f.PrimaryURL()))
		f.Fingerprint = finding.Fingerprint(f.CheckID, f.PrimaryMethod(), shape, f.Subject)
	}
	return fs
}

// dedupe drops findings that say the same thing about the same request; two
// checks planning the same probe must not report it twice.
func dedupe(fs []finding.Finding) []finding.Finding {
	type key struct{ check, method, url, subject, message string }
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := key{f.CheckID, f.PrimaryMethod(), f.PrimaryURL(), f.Subject, f.Message}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return out
}

// sortFindings orders by severity (most severe first), then check, URL,
// method, subject and message, so the same app gives the same report.
func sortFindings(fs []finding.Finding) []finding.Finding {
	slices.SortStableFunc(fs, func(a, b finding.Finding) int {
		return cmp.Or(
			cmp.Compare(b.Severity, a.Severity),
			cmp.Compare(a.CheckID, b.CheckID),
			cmp.Compare(a.PrimaryURL(), b.PrimaryURL()),
			cmp.Compare(a.PrimaryMethod(), b.PrimaryMethod()),
			cmp.Compare(a.Subject, b.Subject),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return fs
}
