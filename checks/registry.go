package checks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/textdist"
)

var idPattern = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)+$`)

// versionPattern is the form of Meta.Since.
var versionPattern = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// Registry is built once per run from an explicit list and validated then,
// so a malformed check is a startup error and not a surprise in a report.
type Registry struct {
	byID map[string]Check
	// byAlias finds a renamed check by a former ID.
	byAlias map[string]Check
	ordered []Check
}

// NewRegistry validates metadata: kebab-case IDs that start with their
// family, unique among every check's ID and former IDs (Aliases), a title,
// help, a severity, at least one clause, and a Since of the form
// MAJOR.MINOR.PATCH when one is given.
func NewRegistry(cs ...Check) (*Registry, error) {
	r := &Registry{byID: make(map[string]Check, len(cs)), byAlias: map[string]Check{}}
	// holder is the check whose ID or alias each name is.
	holder := map[string]string{}
	claim := func(name, id string) error {
		if other, taken := holder[name]; taken {
			if other == id && name == id {
				return fmt.Errorf("check %q registered twice", id)
			}
			return fmt.Errorf("check %q: %q is already the ID or a former ID of check %q", id, name, other)
		}
		holder[name] = id
		return nil
	}
	known := map[Family]bool{}
	for _, f := range Families {
		known[f] = true
	}
	// metas holds each check's metadata, in the order given, so that the
	// family and ID passes below build it once per check, not once per
	// comparison.
	metas := make([]Meta, 0, len(cs))
	for _, c := range cs {
		m := c.Meta()
		metas = append(metas, m)
		switch {
		case !idPattern.MatchString(m.ID):
			return nil, fmt.Errorf("check %q: ID must be kebab-case", m.ID)
		case !known[m.Family]:
			return nil, fmt.Errorf("check %q: unknown family %q", m.ID, m.Family)
		case !strings.HasPrefix(m.ID, string(m.Family)+"-"):
			return nil, fmt.Errorf("check %q: ID must start with its family %q", m.ID, m.Family)
		case m.Title == "" || m.Help == "":
			return nil, fmt.Errorf("check %q: title and help are required", m.ID)
		case m.Severity == finding.SeverityNone:
			return nil, fmt.Errorf("check %q: severity is required", m.ID)
		case len(m.SpecRefs) == 0:
			return nil, fmt.Errorf("check %q: at least one spec clause is required", m.ID)
		case validNeeds(m.Needs) != "":
			return nil, fmt.Errorf("check %q: %s", m.ID, validNeeds(m.Needs))
		case validDocuments(m.Documents) != "":
			return nil, fmt.Errorf("check %q: %s", m.ID, validDocuments(m.Documents))
		case m.Since != "" && !versionPattern.MatchString(m.Since):
			return nil, fmt.Errorf("check %q: Since %q is not a version MAJOR.MINOR.PATCH", m.ID, m.Since)
		}
		if err := claim(m.ID, m.ID); err != nil {
			return nil, err
		}
		for _, alias := range m.Aliases {
			switch {
			case !idPattern.MatchString(alias):
				return nil, fmt.Errorf("check %q: former ID %q must be kebab-case", m.ID, alias)
			case alias == m.ID:
				return nil, fmt.Errorf("check %q: its ID is not a former ID", m.ID)
			}
			if err := claim(alias, m.ID); err != nil {
				return nil, err
			}
			r.byAlias[alias] = c
		}
		r.byID[m.ID] = c
		r.ordered = append(r.ordered, c)
	}
	for _, f := range Families {
		if problem := validParts(family(r.ordered, metas, f)); problem != "" {
			return nil, fmt.Errorf("family %q: %s", f, problem)
		}
	}
	// IDs are unique, so the order by ID is the one order there is.
	byID := make([]int, len(r.ordered))
	for i := range byID {
		byID[i] = i
	}
	slices.SortFunc(byID, func(i, j int) int { return strings.Compare(metas[i].ID, metas[j].ID) })
	sorted := make([]Check, len(byID))
	for k, i := range byID {
		sorted[k] = r.ordered[i]
	}
	r.ordered = sorted
	return r, nil
}

// family is the checks of f among cs, whose metadata metas holds, in the
// order they were given.
func family(cs []Check, metas []Meta, f Family) []Check {
	var out []Check
	for i, c := range cs {
		if metas[i].Family == f {
			out = append(out, c)
		}
	}
	return out
}

// All returns every check, sorted by ID.
func (r *Registry) All() []Check { return r.ordered }

// Get returns one check by ID.
func (r *Registry) Get(id string) (Check, bool) {
	c, ok := r.byID[id]
	return c, ok
}

// Renamed returns the check that once had the ID old (Meta.Aliases).
func (r *Registry) Renamed(old string) (Check, bool) {
	c, ok := r.byAlias[old]
	return c, ok
}

// Renames maps each former ID of the checks to the check's ID now.
func Renames(cs []Check) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		m := c.Meta()
		for _, alias := range m.Aliases {
			out[alias] = m.ID
		}
	}
	return out
}

// Suggest returns the registered ID closest to id, for "did you mean" hints.
// Ties go to the first ID in sorted order, so the hint is the same on every
// run.
func (r *Registry) Suggest(id string) string {
	best, bestDist := "", len(id)/2+2
	for _, c := range r.ordered {
		known := c.Meta().ID
		if d := textdist.Distance(id, known, bestDist-1); d < bestDist {
			best, bestDist = known, d
		}
	}
	return best
}

// RuleInfo converts metadata for the report.
func RuleInfo(m Meta) finding.RuleInfo {
	return finding.RuleInfo{
		ID: m.ID, Family: string(m.Family), Title: m.Title, Severity: m.Severity,
		Security: m.Security, SpecRefs: m.SpecRefs, Help: m.Help, DocsURL: m.DocsURL(),
		Documents: m.Documents.Names(), Readiness: m.Readiness,
	}
}
