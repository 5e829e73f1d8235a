// Package agentskills reads an Agent Skills discovery index (Agent Skills
// Discovery RFC v0.2.0, a vendor draft) and the frontmatter of a SKILL.md
// (Agent Skills specification). It is pure and bounded: at most MaxSkills
// skills and MaxProblems problems are kept, and frontmatter is read from
// the first maxFrontmatter bytes only.
package agentskills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentready/agentready/internal/bounded"
	"github.com/agentready/agentready/internal/sanitize"
)

// Path is the index's well-known location; LegacyPath is v0.1.0's.
const (
	Path       = "/.well-known/agent-skills/index.json"
	LegacyPath = "/.well-known/skills/index.json"
)

// Bounds on what is kept from a hostile index.
const (
	MaxSkills      = 100
	MaxProblems    = 20
	maxFrontmatter = 64 << 10
	maxDescription = 1024
)

// Skill is one entry of the index.
type Skill struct {
	Name, Type, Description, URL, Digest string
	Pointer                              string
}

// Index is a parsed index.
type Index struct {
	Schema   string
	Skills   []Skill // the first MaxSkills
	Count    int
	Problems bounded.List[Problem]
}

// Problem is an entry, or the index, breaking a rule of the draft.
type Problem struct{ Pointer, Message string }

var (
	namePattern   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// ParseIndex reads an index: a JSON object with "$schema" and a "skills"
// array whose entries have the five required fields.
func ParseIndex(body []byte) (*Index, error) {
	var raw struct {
		Schema *string            `json:"$schema"`
		Skills *[]json.RawMessage `json:"skills"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if raw.Skills == nil {
		return nil, errors.New(`no "skills" array`)
	}
	ix := &Index{Count: len(*raw.Skills), Problems: bounded.List[Problem]{Max: MaxProblems}}
	if raw.Schema == nil {
		ix.problem("", `the index has no "$schema" (clients then read it as v0.1.0)`)
	} else {
		ix.Schema = *raw.Schema
	}
	for i, r := range (*raw.Skills)[:min(len(*raw.Skills), MaxSkills)] {
		ix.skill(fmt.Sprintf("/skills/%d", i), r)
	}
	return ix, nil
}

func (ix *Index) problem(ptr, format string, args ...any) {
	ix.Problems.Add(Problem{Pointer: ptr, Message: fmt.Sprintf(format, args...)})
}

func (ix *Index) skill(ptr string, raw json.RawMessage) {
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil || e == nil {
		ix.problem(ptr, "a skill entry is not a JSON object")
		return
	}
	str := func(k string) string { s, _ := e[k].(string); return s }
	s := Skill{Name: str("name"), Type: str("type"), Description: str("description"), URL: str("url"), Digest: str("digest"), Pointer: ptr}
	switch {
	case !ValidName(s.Name):
		ix.problem(ptr+"/name", "name %q is not 1-64 lowercase letters, digits and single hyphens", clip(s.Name))
	case s.Type != "skill-md" && s.Type != "archive":
		ix.problem(ptr+"/type", `type %q is neither "skill-md" nor "archive"`, clip(s.Type))
	case s.Description == "" || utf8.RuneCountInString(s.Description) > maxDescription:
		ix.problem(ptr+"/description", "the description is empty or longer than 1024 characters")
	case s.URL == "":
		ix.problem(ptr+"/url", "the entry has no url")
	case !digestPattern.MatchString(s.Digest):
		ix.problem(ptr+"/digest", `digest %q is not "sha256:" and 64 lowercase hexadecimal digits`, clip(s.Digest))
	}
	ix.Skills = append(ix.Skills, s)
}

// ValidName applies the Agent Skills naming rules: 1-64 characters,
// lowercase letters, digits and hyphens, no hyphen leading, trailing or
// doubled.
func ValidName(s string) bool { return len(s) <= 64 && namePattern.MatchString(s) }

// Frontmatter reads the name and description of a SKILL.md's YAML
// frontmatter, a block between "---" lines at the top. Only plain
// "key: value" lines are read, which is what these two fields are.
func Frontmatter(body []byte) (name, description string, ok bool) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	body = body[:min(len(body), maxFrontmatter)]
	lines := strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return "", "", false
	}
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "---" {
			return name, description, true
		}
		k, v, found := strings.Cut(l, ":")
		if !found || strings.HasPrefix(l, " ") {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch strings.TrimSpace(k) {
		case "name":
			name = v
		case "description":
			description = v
		}
	}
	return "", "", false
}

// clip bounds a value quoted in a problem. Values come from decoded JSON,
// which is valid UTF-8, so a cut on a rune boundary leaves it valid.
func clip(s string) string { return sanitize.Truncate(s, 64) }
