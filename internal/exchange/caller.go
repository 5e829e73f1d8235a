package exchange

import "fmt"

// Caller is one identity a scan runs as, as every layer after the
// configuration knows it: described once where the identities are built
// (probe.Describe), carried by the probe onto the recording of what it was
// shown, and read by the checks as it is. It names what the identity sends,
// never a value: the credentials themselves stay in the configuration and
// the probe.
type Caller struct {
	// Name is the identity's name, as reports show it; empty for the one
	// unnamed caller of a scan as no identity.
	Name string `json:"name"`
	// Rank is the identity's place among the scan's identities, 0 the least
	// privileged. A recording keeps the identities in that order, so the
	// rank itself is not written.
	Rank int `json:"-"`
	// Credentials are the canonical names of the credential headers the
	// identity sends (Authorization, Cookie, an API key header); none means
	// anonymous.
	Credentials []string `json:"credentials"`
	// Roles are the roles the configuration gives the identity; nil means
	// not stated, which leaves role requirements undecided.
	Roles []string `json:"roles"`
}

// Anonymous reports a caller that sends no credentials.
func (c Caller) Anonymous() bool { return len(c.Credentials) == 0 }

// Label names the caller in messages; a scan as no named identity has an
// unnamed one.
func (c Caller) Label() string {
	if c.Name == "" {
		return "this caller"
	}
	return fmt.Sprintf("%q", c.Name)
}
