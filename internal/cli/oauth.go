package cli

import (
	"strings"

	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/probe"
)

// oauthKeys are the fields of --oauth-for, as the configuration file spells
// them.
var oauthKeys = []string{"token-url", "client-id", "client-secret", "scope", "audience", "auth"}

// parseOAuthFor reads the value of --oauth-for after NAME=: comma-separated
// key=value fields, the keys of an identity's oauth: in the configuration
// file. A value cannot hold a comma; scopes are separated by spaces.
func parseOAuthFor(name, spec string) (*config.OAuth, error) {
	o := &config.OAuth{}
	fields := map[string]*string{"token-url": &o.TokenURL, "client-id": &o.ClientID, "client-secret": &o.ClientSecret,
		"scope": &o.Scope, "audience": &o.Audience, "auth": &o.Auth}
	for _, part := range strings.Split(spec, ",") {
		key, value, ok := strings.Cut(part, "=")
		key = strings.TrimSpace(key)
		field, known := fields[key]
		if !ok || !known {
			// Not echoed: the part may be a credential pasted here.
			return nil, usageError("--oauth-for %s: want comma-separated key=value fields, the keys being %s", name, strings.Join(oauthKeys, ", "))
		}
		*field = strings.TrimSpace(value)
	}
	if problems := o.Problems(); len(problems) > 0 {
		return nil, usageError("--oauth-for %s: %s", name, strings.Join(problems, "; "))
	}
	return o, nil
}

// grant resolves the references of an identity's oauth: fields into the
// grant the probe sends; file: paths through resolvePath.
func grant(name string, o *config.OAuth, getenv func(string) string, resolvePath func(string) string) (*probe.OAuth, error) {
	id, err := refValue(o.ClientID, getenv, resolvePath)
	if err != nil {
		return nil, usageError("identity %s: oauth client-id: %v", name, err)
	}
	secret, err := refValue(o.ClientSecret, getenv, resolvePath)
	if err != nil {
		return nil, usageError("identity %s: oauth client-secret: %v", name, err)
	}
	return &probe.OAuth{
		TokenURL: o.TokenURL, ClientID: id, ClientSecret: secret, Scopes: strings.Fields(o.Scope),
		Audience: o.Audience, SecretInBody: o.Auth == "client_secret_post",
	}, nil
}
