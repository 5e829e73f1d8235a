package mcp

import "github.com/agentready/agentready/internal/finding"

// Info converts the snapshot for the report.
func (s *Snapshot) Info() *finding.MCPInfo {
	if s == nil {
		return nil
	}
	info := &finding.MCPInfo{
		Endpoint: s.Endpoint.URL, Source: s.Endpoint.Source, Identity: s.Identity,
		Era: string(s.Verdict.Era), Version: s.Verdict.Version, SupportedVersions: s.Verdict.SupportedVersions,
		FellBack: s.Verdict.FellBack, Refused: s.Verdict.Refused, Reason: s.Verdict.Reason,
		Steps: steps(s.Verdict.Steps), Notes: s.Notes,
	}
	if len(s.Listings) > 0 {
		info.CatalogFingerprint, info.Tokens, info.Tokenizer = s.Catalog.Fingerprint, s.Catalog.Tokens, s.Catalog.Tokenizer
		for _, t := range s.Catalog.Tools {
			info.Tools = append(info.Tools, finding.MCPTool(t))
		}
	}
	for _, o := range s.Others {
		info.Others = append(info.Others, finding.MCPEndpoint{
			Endpoint: o.Endpoint.URL, Source: o.Endpoint.Source,
			Era: string(o.Verdict.Era), Version: o.Verdict.Version, Reason: o.Verdict.Reason,
		})
	}
	return info
}

func steps(in []Step) []finding.MCPStep {
	out := make([]finding.MCPStep, len(in))
	for i, st := range in {
		out[i] = finding.MCPStep(st)
	}
	return out
}

// IdentityInfo converts the catalog listed as one identity for the report.
func (s *Snapshot) IdentityInfo() finding.MCPIdentity {
	info := finding.MCPIdentity{
		Identity: s.Identity, Era: string(s.Verdict.Era),
		Refused: s.Verdict.Refused, RefusedStatus: s.Verdict.RefusedStatus, Tools: []string{},
	}
	if len(s.Listings) > 0 {
		l := s.Listings[0]
		for _, t := range l.Tools {
			info.Tools = append(info.Tools, t.Name)
		}
		info.CatalogFingerprint, info.Problem = s.Catalog.Fingerprint, l.Problem
	}
	return info
}
