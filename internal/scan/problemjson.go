package scan

import (
	"github.com/agentready/agentready/checks/problemjson"
	"github.com/agentready/agentready/internal/exchange"
)

// errorProbeNotes tells the reader how many error probes the problem-json
// family sent: they are requests for URLs the app never advertised, and a
// reader checking the target's logs should be able to account for them.
func errorProbeNotes(rec *exchange.Recording) []string {
	if s := problemjson.ProbeSummary(rec); s != "" {
		return []string{s}
	}
	return nil
}
