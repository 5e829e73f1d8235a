package stateful

import (
	"fmt"
	"strings"

	"github.com/agentready/agentready/checks/internal/activeplan"
	"github.com/agentready/agentready/internal/jsonorder"
)

// confirmWhileInvalid: while validation_errors lists a failure, the flow
// stops at the failing node and next_actions offers only the way to fix it.
func (n *node) confirmWhileInvalid(entries []entry) {
	errs := n.v.Get("validation_errors")
	count := 0
	switch {
	case errs.Is(jsonorder.Array):
		count = len(errs.Items)
	case errs.Is(jsonorder.Object):
		count = len(errs.Members)
	}
	if count == 0 {
		return
	}
	for _, e := range entries {
		why := ""
		switch {
		case activeplan.NamesStep(e.name, "confirm", "confirmation"):
			why = "a confirm step"
		case e.v.Get("requires_user_approval").IsTrue():
			why = "marked requires_user_approval"
		case e.v.Get("requires_confirmation").IsTrue():
			why = "marked requires_confirmation"
		case namesSideEffect(e.text):
			why = "its description names a high-risk action"
		default:
			continue
		}
		n.a.add(idConfirmInvalid, n.x, e.v, e.name,
			fmt.Sprintf("next_actions offers %s (%s) while validation_errors is not empty: the action could be submitted with fields that failed validation",
				e.name, why),
			"only the actions that fix the failing fields", e.name)
	}
}

// undescribed: each entry says what it does, so that the model chooses
// among the offered actions by their effect rather than by their names.
func (n *node) undescribed(entries []entry) {
	for _, e := range entries {
		if strings.TrimSpace(e.text) != "" {
			continue
		}
		n.a.add(idUndescribed, n.x, e.v, e.name,
			fmt.Sprintf("next_actions offers %s without a description or title: the model is told it may call it, not what it does", e.name),
			"a description member", "(absent)")
	}
}

// fieldMembers name, in a validation_errors entry, the field that failed;
// messageMembers say why.
var (
	fieldMembers   = []string{"field", "pointer", "path"}
	messageMembers = []string{"message", "reason", "detail"}
)

// resultShapes: applied lists the fields that took effect, and
// validation_errors says, field by field, why the others did not. A null
// is taken as an empty list, which is how many serializers write one.
func (n *node) resultShapes() {
	if applied := n.v.Get("applied"); applied != nil && applied.Kind != jsonorder.Null {
		n.appliedShape(applied)
	}
	if errs := n.v.Get("validation_errors"); errs != nil && errs.Kind != jsonorder.Null {
		n.validationShape(errs)
	}
}

func (n *node) appliedShape(applied *jsonorder.Value) {
	switch {
	case applied.Is(jsonorder.Object):
		return // field names as members, each with the value applied
	case !applied.Is(jsonorder.Array):
		n.a.add(idResultShape, n.x, applied, "applied",
			fmt.Sprintf("applied is a JSON %s, not a list of the fields that took effect", applied.Kind.String()),
			"an array of field names", applied.Kind.String())
		return
	}
	for _, it := range applied.Items {
		if s, ok := it.Str(); ok && strings.TrimSpace(s) != "" {
			continue
		}
		n.a.add(idResultShape, n.x, it, "applied",
			fmt.Sprintf("an entry of applied is a JSON %s, not the name of a field that took effect", it.Kind.String()),
			"a field name", it.Kind.String())
	}
}

func (n *node) validationShape(errs *jsonorder.Value) {
	if !errs.Is(jsonorder.Array) {
		n.a.add(idResultShape, n.x, errs, "validation_errors",
			fmt.Sprintf("validation_errors is a JSON %s, not a list of failures each naming its field and why", errs.Kind.String()),
			"an array of objects with a field and a message", errs.Kind.String())
		return
	}
	for _, it := range errs.Items {
		var lacks []string
		if !it.Is(jsonorder.Object) {
			lacks = []string{"is no object"}
		} else {
			if !hasText(it, fieldMembers) {
				lacks = append(lacks, "names no field ("+strings.Join(fieldMembers, ", ")+")")
			}
			if !hasText(it, messageMembers) {
				lacks = append(lacks, "gives no message ("+strings.Join(messageMembers, ", ")+")")
			}
		}
		if len(lacks) == 0 {
			continue
		}
		n.a.add(idResultShape, n.x, it, "validation_errors",
			fmt.Sprintf("an entry of validation_errors %s: the model cannot tell which field to fix, or how", strings.Join(lacks, " and ")),
			"an object with a field and a message", it.Kind.String())
	}
}

// hasText reports an object with a non-empty string in one of members.
func hasText(v *jsonorder.Value, members []string) bool {
	for _, m := range members {
		if s, ok := v.Get(m).Str(); ok && strings.TrimSpace(s) != "" {
			return true
		}
	}
	return false
}
