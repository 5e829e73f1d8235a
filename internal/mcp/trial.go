package mcp

import (
	"encoding/json"

	"github.com/agentready/agentready/internal/exchange"
)

// Accomplished reports a state-changing attempt of a trial the server
// carried out: a 2xx, and for a tools/call (via exchange.ViaMCP) a JSON-RPC
// result that is not an error result. The probe stops trying once one is,
// and the checks judge with the same reading.
func Accomplished(x *exchange.Exchange, via string) bool {
	if x == nil || x.Response == nil || x.Response.Status < 200 || x.Response.Status > 299 {
		return false
	}
	if via != exchange.ViaMCP {
		return true
	}
	m, err := ParseResponse(x.Response.Header.Get("Content-Type"), x.Response.Body, 1)
	if err != nil || m == nil || m.Error != nil || len(m.Result) == 0 {
		return false
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(m.Result, &res) == nil && !res.IsError
}
