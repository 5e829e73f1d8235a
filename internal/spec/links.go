package spec

import (
	"strings"

	"github.com/agentready/agentready/internal/jsonorder"
)

// LinkTarget is the operation a link names, by operationId or by a local
// operationRef ("#/paths/~1orders~1{id}/get"), or nil: a reference into
// another document names nothing the scan has.
func (d *Document) LinkTarget(l Link) *Operation {
	if l.OperationID != "" {
		for _, op := range d.Operations {
			if op.OperationID == l.OperationID {
				return op
			}
		}
		return nil
	}
	rest, ok := strings.CutPrefix(l.OperationRef, "#/paths/")
	if !ok {
		return nil
	}
	i := strings.LastIndex(rest, "/")
	if i < 0 {
		return nil
	}
	template := jsonorder.Unescape(rest[:i])
	method := strings.ToUpper(rest[i+1:])
	for _, op := range d.Operations {
		if op.PathTemplate == template && op.Method == method {
			return op
		}
	}
	return nil
}
