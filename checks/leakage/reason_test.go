package leakage

import "testing"

// Reasons written the many ways APIs write them: each policy one names who
// or what unlocks the operation; each state one says why not now.
func TestRevealsPolicyPhrasings(t *testing.T) {
	for _, r := range []string{
		"role:admin", "scope=orders:write", "requires manager role", "You need to be an admin", "Upgrade to Pro",
		"requires refunds:write", "requires the Pro plan", "admin only", "refunds require the admin role",
	} {
		if !revealsPolicy(r) {
			t.Errorf("missed %q", r)
		}
	}
	for _, r := range []string{
		"awaiting admin approval", "subscription is cancelled", "order is shipped", "requires payment first",
		"the order has not been paid", "needs a shipping address", "requires the order to be paid",
		"you are not allowed to do this", "insufficient permissions", "requires a valid email",
		"group order is locked", "missing items: 2", "version 2.1 required",
	} {
		if revealsPolicy(r) {
			t.Errorf("false positive %q", r)
		}
	}
}
