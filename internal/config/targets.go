package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// targetNamePattern keeps a target's name usable as a file name part and a
// SARIF category segment on every system.
var targetNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// maxTargetName keeps file names derived from a name well under the limits
// of common file systems.
const maxTargetName = 64

// TargetName is the name a target without one is known by: its host, port
// and path, with every other character turned into '-', e.g.
// api.example.com-8443-v2. It is "" for what is not a URL.
func TargetName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return ""
	}
	var b strings.Builder
	dash := false
	for _, r := range u.Host + u.Path {
		ok := r < 128 && (r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-.")
	if len(name) > maxTargetName {
		name = strings.Trim(name[:maxTargetName], "-.")
	}
	return name
}

// CheckTargetName says what is wrong with a target's name, or "".
func CheckTargetName(name string) string {
	switch {
	case len(name) > maxTargetName:
		return fmt.Sprintf("name %q: at most %d characters", name, maxTargetName)
	case !targetNamePattern.MatchString(name):
		return fmt.Sprintf("name %q: want letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	}
	return ""
}

// NameOf is the target's name, or the one taken from its URL.
func (t Target) NameOf() string {
	if t.Name != "" {
		return t.Name
	}
	return TargetName(t.URL)
}

// validateTargets checks each target where it is written: errors carry the
// line its item starts on.
func (f *File) validateTargets() []error {
	var errs []error
	if len(f.Targets) > 0 && f.Target != "" {
		errs = append(errs, fmt.Errorf("%starget and targets are both set: keep target for one URL, or list it under targets", f.targetLine(0)))
	}
	firstLine := map[string]int{}
	for i, t := range f.Targets {
		where := fmt.Sprintf("%stargets[%d]", f.targetLine(i), i)
		add := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, a...)))
		}
		switch {
		case t.URL == "":
			add("url is required")
		case !isHTTPURL(t.URL):
			add("url %q: want an absolute http or https URL", t.URL)
		}
		name := t.NameOf()
		if msg := CheckTargetName(name); msg != "" && (t.Name != "" || isHTTPURL(t.URL)) {
			add("%s", msg)
		}
		if prev, dup := firstLine[name]; dup && name != "" {
			add("name %q is used twice (first by targets[%d]); give each target its own name", name, prev)
		} else {
			firstLine[name] = i
		}
		if t.MCP != "" && !isHTTPURL(t.MCP) {
			add("mcp %q: want an absolute http or https URL", t.MCP)
		}
		if bp := strings.TrimSpace(t.BasePath); bp != "" && !strings.HasPrefix(bp, "/") {
			add("base-path %q: want a path starting with /", t.BasePath)
		}
		if t.Server != nil && *t.Server < 1 {
			add("server: must be at least 1")
		}
		if c := t.SARIFCategory; c != "" && (strings.TrimSpace(c) == "" || strings.ContainsAny(c, "\r\n")) {
			add("sarif-category %q: want one line of text", c)
		}
		if msg := t.TLS.problem(); msg != "" {
			add("tls: %s", msg)
		}
		errs = append(errs, validateIdentities(t.Identities, where+".identities")...)
	}
	return errs
}

// targetLine is "line N: " for the i-th target, or "" when unknown (a file
// built in code).
func (f *File) targetLine(i int) string {
	if i < len(f.targetLines) {
		return fmt.Sprintf("line %d: ", f.targetLines[i])
	}
	return ""
}
