package exchange

// What the tests compare the credential rules with.
var (
	GitleaksVersion = gitleaksVersion
	GitleaksCommit  = gitleaksCommit
)

// CredentialRuleIDs are the IDs of the rules searched for, in order.
func CredentialRuleIDs() []string {
	out := make([]string, 0, len(credentialRules))
	for _, r := range credentialRules {
		out = append(out, r.ID)
	}
	return out
}

// GitleaksRuleIDs are the IDs of the generated gitleaks rules, in order.
func GitleaksRuleIDs() []string {
	out := make([]string, 0, len(gitleaksRules))
	for _, r := range gitleaksRules {
		out = append(out, r.ID)
	}
	return out
}
