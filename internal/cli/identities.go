package cli

import (
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/agentready/agentready/fixtures/demo"
	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/probe"
)

// identityFlags name the callers to scan as. Headers are given per identity
// with --header-for 'NAME=Header: value'; a value, or the word after its
// scheme, may be env:VAR or file:PATH so that secrets stay out of shell
// history. Values are never printed.
type identityFlags struct {
	names           []string
	headers         []string
	oauth           []string
	leastPrivileged string
	// fallback is used when neither flags nor the configuration name any
	// identity (the demo scans as anonymous and user).
	fallback []probe.Identity
	// ofTarget are the identities one of several targets declares; when set
	// they replace the configuration's top-level ones for that target.
	ofTarget []config.Identity
}

func (f *identityFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.names, "identity", nil, "scan as this caller too (repeatable; the order given is the rank, least privileged first); with two or more the leakage family compares them")
	fs.StringArrayVar(&f.headers, "header-for", nil, "'NAME=Header: value' sent only as identity NAME (repeatable); the value may be env:VAR or file:PATH, also after a scheme ('Authorization: Bearer env:USER_TOKEN') or a cookie name ('Cookie: session=env:SESSION')")
	fs.StringArrayVar(&f.oauth, "oauth-for", nil, "'NAME=token-url=URL, client-id=ID, client-secret=env:VAR', optionally with scope=, audience= and auth=client_secret_post: identity NAME sends a Bearer token from this OAuth token endpoint (client credentials grant), renewed as it expires (repeatable); client-id may be env:VAR or file:PATH, client-secret must be one of them, never the secret itself")
	fs.StringVar(&f.leastPrivileged, "least-privileged", "", "the identity ranked lowest, whatever the order given")
}

// resolve builds the identities from the flags, else from the configuration
// file, else the fallback, and describes each once for every later layer
// (probe.Describe), with shared, the headers sent as every identity; nil
// means the single-identity scan.
func (f *identityFlags) resolve(e *env, shared http.Header) ([]probe.Identity, error) {
	ids, err := f.fromFlags(e)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 && len(f.ofTarget) > 0 {
		if ids, err = fromConfig(f.ofTarget, e.get, e.config.file.Resolve); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 && e.config != nil {
		if ids, err = fromConfig(e.config.file.Identities, e.get, e.config.file.Resolve); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 {
		ids = f.fallback
	}
	if ids, err = rank(ids, f.leastPrivileged); err != nil {
		return nil, err
	}
	return probe.Describe(ids, shared), nil
}

func (f *identityFlags) fromFlags(e *env) ([]probe.Identity, error) {
	var ids []probe.Identity
	index := map[string]int{}
	for _, name := range f.names {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, "=:") {
			return nil, usageError("--identity %q: want a name without '=' or ':'", name)
		}
		if _, dup := index[name]; dup {
			return nil, usageError("--identity %s is given twice", name)
		}
		index[name] = len(ids)
		ids = append(ids, probe.Identity{Caller: exchange.Caller{Name: name}, Header: http.Header{}})
	}
	for _, raw := range f.headers {
		name, header, ok := strings.Cut(raw, "=")
		i, known := index[strings.TrimSpace(name)]
		if !ok || !known {
			// The value may hold a secret, and without NAME= the part before
			// the first = is a header and part of its value (base64 pads
			// with =): echo it only when it reads as an identity name.
			shown := strings.TrimSpace(name)
			if !ok || strings.ContainsAny(shown, ": \t") {
				shown = "(not shown: it may hold a credential)"
			} else {
				shown = fmt.Sprintf("%q", shown)
			}
			return nil, usageError("--header-for: want 'NAME=Header: value' naming an --identity (got identity %s)", shown)
		}
		key, value, ok := strings.Cut(header, ":")
		key = strings.TrimSpace(key)
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return nil, usageError("--header-for %s: want 'Header: value'", name)
		}
		v, err := secretValue(strings.TrimSpace(value), e)
		if err != nil {
			return nil, usageError("--header-for %s %s: %v", name, key, err)
		}
		ids[i].Header.Add(key, v)
	}
	if len(f.headers) > 0 && len(ids) == 0 {
		return nil, usageError("--header-for needs --identity")
	}
	if err := f.addOAuth(e, ids, index); err != nil {
		return nil, err
	}
	return ids, nil
}

// addOAuth gives the identities named in --oauth-for their grant; file:
// paths are relative to the working directory, like --header-for's.
func (f *identityFlags) addOAuth(e *env, ids []probe.Identity, index map[string]int) error {
	for _, raw := range f.oauth {
		name, spec, ok := strings.Cut(raw, "=")
		name = strings.TrimSpace(name)
		i, known := index[name]
		if !ok || !known {
			return usageError("--oauth-for: want 'NAME=token-url=...,client-id=...,client-secret=env:VAR' naming an --identity")
		}
		if ids[i].OAuth != nil {
			return usageError("--oauth-for %s is given twice", name)
		}
		o, err := parseOAuthFor(name, spec)
		if err != nil {
			return err
		}
		if ids[i].OAuth, err = grant(name, o, e.get, func(p string) string { return p }); err != nil {
			return err
		}
	}
	return nil
}

// secretValue resolves env:VAR and file:PATH, alone or after a scheme word.
func secretValue(v string, e *env) (string, error) {
	scheme, ref := splitScheme(v)
	s, err := refValue(ref, e.get, func(p string) string { return p })
	if err != nil {
		return "", err
	}
	return scheme + s, nil
}

// splitScheme cuts a scheme word ("Bearer ") or a cookie name ("session=")
// off a reference, which it returns; a value holding no reference is
// returned whole.
func splitScheme(v string) (scheme, ref string) {
	scheme, ref = "", v
	if before, after, ok := strings.Cut(v, " "); ok && isSecretRef(strings.TrimSpace(after)) {
		scheme, ref = before+" ", strings.TrimSpace(after)
	} else if before, after, ok := strings.Cut(v, "="); ok && !strings.ContainsAny(before, " ;") && isSecretRef(after) {
		// A cookie: "session=env:SESSION".
		scheme, ref = before+"=", after
	}
	return scheme, ref
}

// refValue resolves env:VAR and file:PATH (through resolvePath); any other
// value is itself.
func refValue(ref string, getenv func(string) string, resolvePath func(string) string) (string, error) {
	switch {
	case strings.HasPrefix(ref, "env:"):
		name := strings.TrimPrefix(ref, "env:")
		s := getenv(name)
		if s == "" {
			return "", fmt.Errorf("environment variable %s is unset or empty", name)
		}
		return s, nil
	case strings.HasPrefix(ref, "file:"):
		path := resolvePath(strings.TrimPrefix(ref, "file:"))
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("reading %s: %v", path, err)
		}
		s := strings.TrimRight(string(b), "\r\n")
		if s == "" || strings.ContainsAny(s, "\r\n") {
			return "", fmt.Errorf("%s must hold one non-empty line", path)
		}
		return s, nil
	}
	return ref, nil
}

func isSecretRef(s string) bool { return config.IsSecretRef(s) }

// fromConfig turns the file's identities into scan identities; the secret
// stays in the named environment variable, or the file, until now. file:
// paths are resolved with resolvePath (relative to the file).
func fromConfig(ids []config.Identity, getenv func(string) string, resolvePath func(string) string) ([]probe.Identity, error) {
	var out []probe.Identity
	for _, id := range ids {
		if id.OAuth != nil {
			g, err := grant(id.Name, id.OAuth, getenv, resolvePath)
			if err != nil {
				return nil, err
			}
			out = append(out, probe.Identity{Caller: exchange.Caller{Name: id.Name, Roles: id.Roles}, Header: http.Header{}, OAuth: g})
			continue
		}
		header, value, ok := id.Credential(getenv)
		if !ok {
			return nil, usageError("identity %s: environment variable %s is unset or empty", id.Name, id.Env)
		}
		out = append(out, probe.Identity{Caller: exchange.Caller{Name: id.Name, Roles: id.Roles}, Header: http.Header{http.CanonicalHeaderKey(header): {value}}})
	}
	return out, nil
}

// rank moves the named identity first; the others keep the order given.
func rank(ids []probe.Identity, least string) ([]probe.Identity, error) {
	if least == "" {
		return ids, nil
	}
	for i, id := range ids {
		if id.Name == least {
			out := append([]probe.Identity{id}, ids[:i]...)
			return append(out, ids[i+1:]...), nil
		}
	}
	return nil, usageError("--least-privileged %s names no identity", least)
}

// demoIdentities are the demo's anonymous and user callers, by its
// documented, non-secret token.
func demoIdentities() []probe.Identity {
	return []probe.Identity{
		{Caller: exchange.Caller{Name: "anonymous", Roles: []string{}}},
		{Caller: exchange.Caller{Name: "user", Roles: []string{"user"}}, Header: http.Header{"Authorization": {"Bearer " + demo.UserToken}}},
	}
}
