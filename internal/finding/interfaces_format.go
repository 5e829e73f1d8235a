package finding

import (
	"strconv"
	"strings"
)

// InterfaceLetter is seed 000's letter for an interface: A, B or C.
func InterfaceLetter(name string) string {
	switch name {
	case InterfaceStatic:
		return "A"
	case InterfaceReferenced:
		return "B"
	case InterfaceDynamic:
		return "C"
	}
	return "?"
}

// Figure renders an optional figure for a table: "—" when absent, integers
// without a decimal point, halves (a median of two) with one.
func Figure[T int | float64](v *T) string {
	if v == nil {
		return "—"
	}
	return strings.TrimSuffix(strconv.FormatFloat(float64(*v), 'f', 1, 64), ".0")
}

// YesNo renders an optional flag for a table.
func YesNo(v *bool) string {
	switch {
	case v == nil:
		return "—"
	case *v:
		return "yes"
	}
	return "no"
}

// InterfaceRow is one interface's figures as table cells: upfront tokens,
// tokens per step, choices per step, invalid choices per step, cache-stable
// prefix. An interface not offered has one cell saying so.
func InterfaceRow(c InterfaceCost) []string {
	if !c.Offered {
		return []string{"not offered: " + c.Reason}
	}
	return []string{Figure(c.UpfrontTokens), Figure(c.PerStepTokens), Figure(c.ChoicesPerStep), Figure(c.InvalidChoicesPerStep), YesNo(c.CacheStablePrefix)}
}

// InterfaceColumns are the headers of InterfaceRow's cells.
var InterfaceColumns = []string{"upfront tokens", "tokens/step", "choices/step", "invalid/step", "cache-stable prefix"}

// KindSummary is a per-kind entry in one short cell: choices (and for A the
// invalid ones) and tokens per step.
func KindSummary(c InterfaceCost) string {
	if !c.Offered {
		return "not offered"
	}
	if c.ChoicesPerStep == nil {
		return "not observed"
	}
	s := Figure(c.ChoicesPerStep) + " choices"
	if *c.ChoicesPerStep == 1 {
		s = "1 choice"
	}
	if c.InvalidChoicesPerStep != nil {
		s += ", " + Figure(c.InvalidChoicesPerStep) + " invalid"
	}
	if c.PerStepTokens != nil && c.Interface != InterfaceStatic {
		s += ", " + Figure(c.PerStepTokens) + " tokens"
	}
	return s
}
