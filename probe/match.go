package probe

import "github.com/agentready/agentready/internal/urlx"

// checkPatterns is urlx.CheckPattern over every pattern of cfg.
func checkPatterns(cfg Config) error {
	for _, list := range [][]string{cfg.Include, cfg.Exclude} {
		for _, p := range list {
			if err := urlx.CheckPattern(p); err != nil {
				return err
			}
		}
	}
	return nil
}
