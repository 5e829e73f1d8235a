package cli

import (
	"errors"
	"net/url"
	"strings"

	"github.com/spf13/pflag"

	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/spec"
)

// specFlags choose the OpenAPI document of a scan.
type specFlags struct {
	source     string
	noDiscover bool
	noSeed     bool
	maxBody    int64
}

func (s *specFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.source, "openapi", "", "OpenAPI document to check against: a file or an http(s) URL (default: discovered on the target)")
	fs.BoolVar(&s.noDiscover, "no-openapi-discovery", false, "do not look for an OpenAPI document (service-desc link, /openapi.json, ...)")
	fs.BoolVar(&s.noSeed, "no-openapi-seed", false, "do not add the document's parameterless GET operations to the crawl")
	fs.Int64Var(&s.maxBody, "max-spec-body", 32<<20, "read at most this many bytes of a fetched OpenAPI document")
}

// apply sets the probe's spec source. A file is loaded here, so that an
// unreadable one is a usage error before any request is sent; its defects
// are findings, not errors.
func (s *specFlags) apply(cfg *probe.Config) error {
	if s.maxBody < 1 {
		return usageError("--max-spec-body must be positive")
	}
	cfg.Spec = probe.SpecConfig{Discover: !s.noDiscover, NoSeed: s.noSeed, MaxBody: s.maxBody}
	src := strings.TrimSpace(s.source)
	switch {
	case src == "":
		return nil
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		if u, err := url.Parse(src); err != nil || u.Host == "" {
			return usageError("--openapi %s: not a valid URL", shownURL(src))
		}
		cfg.Spec.URL = src
		return nil
	}
	doc, err := spec.LoadFile(src)
	if errors.Is(err, spec.ErrNotOpenAPI) {
		return usageError("--openapi %s: the file has no openapi or swagger field", src)
	}
	if err != nil {
		return usageError("--openapi: %v", err)
	}
	cfg.Spec.Document = doc
	return nil
}
