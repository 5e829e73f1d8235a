package cli

import (
	"errors"
	"net/url"
	"strings"

	"github.com/spf13/pflag"

	"github.com/agentready/agentready/internal/config"
	"github.com/agentready/agentready/internal/spec"
	"github.com/agentready/agentready/probe"
)

// specFlags choose the OpenAPI document of a scan.
type specFlags struct {
	source     string
	noDiscover bool
	noSeed     bool
	maxSize    int64
	basePath   string
	server     int
	// keepRaw keeps the document's text, which a recording embeds.
	keepRaw bool
}

func (s *specFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.source, "openapi", "", "OpenAPI document to check against: a file or an http(s) URL (default: discovered on the target)")
	fs.BoolVar(&s.noDiscover, "no-openapi-discovery", false, "do not look for an OpenAPI document (service-desc link, /openapi.json, ...)")
	fs.BoolVar(&s.noSeed, "no-openapi-seed", false, "do not add the document's parameterless GET operations to the crawl")
	fs.StringVar(&s.basePath, "base-path", "", "path the OpenAPI operations live under on the target, / for the root (default: the servers path or the bare path, whichever answers)")
	fs.IntVar(&s.server, "server", 0, "take the base path from the Nth entry of the OpenAPI servers list, 1 being the first (default: the one the target URL is under, else the first)")
	registerMaxSpecSize(fs, &s.maxSize)
}

// maxSpecSizeFlag caps the OpenAPI document, read from a file or fetched:
// memory grows with the document, at 15 to 85 times its size.
const maxSpecSizeFlag = "max-spec-size"

func registerMaxSpecSize(fs *pflag.FlagSet, v *int64) {
	fs.Int64Var(v, maxSpecSizeFlag, spec.DefaultMaxSize, "largest OpenAPI document read, from a file or fetched, in bytes")
}

func checkMaxSpecSize(v int64) error {
	if v < 1 {
		return usageError("--%s must be positive", maxSpecSizeFlag)
	}
	return nil
}

// loadSpecFileWith loads a local description under the cap with load
// (spec.LoadFile, or spec.LoadFileKeeping to keep its text). A file over the
// cap is a usage error, prefixed with what, that says how to raise the cap;
// other errors are returned as they are, for the caller to classify.
func loadSpecFileWith(load func(string, int64) (*spec.Document, error), what, path string, maxSize int64) (*spec.Document, error) {
	doc, err := load(path, maxSize)
	var tooLarge *spec.TooLargeError
	if errors.As(err, &tooLarge) {
		return nil, usageError("%s: %v; raise the cap with --%s BYTES (or limits.%s in %s)",
			what, err, maxSpecSizeFlag, maxSpecSizeFlag, config.FileName)
	}
	return doc, err
}

// apply sets the probe's spec source. A file is loaded here, so that an
// unreadable one is a usage error before any request is sent; its defects
// are findings, not errors.
func (s *specFlags) apply(cfg *probe.Config) error {
	if err := checkMaxSpecSize(s.maxSize); err != nil {
		return err
	}
	if bp := strings.TrimSpace(s.basePath); bp != "" && !strings.HasPrefix(bp, "/") {
		return usageError("--base-path %q: want a path starting with /", s.basePath)
	}
	if s.server < 0 {
		return usageError("--server must be 1 or more")
	}
	cfg.Spec = probe.SpecConfig{Discover: !s.noDiscover, NoSeed: s.noSeed, MaxBody: s.maxSize,
		BasePath: strings.TrimSpace(s.basePath), Server: s.server}
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
	load := spec.LoadFile
	if s.keepRaw {
		load = spec.LoadFileKeeping
	}
	doc, err := loadSpecFileWith(load, "--openapi", src, s.maxSize)
	var exit *ExitError
	switch {
	case errors.As(err, &exit):
		return err
	case errors.Is(err, spec.ErrNotOpenAPI):
		return usageError("--openapi %s: the file has no openapi or swagger field", src)
	case err != nil:
		return usageError("--openapi: %v", err)
	}
	cfg.Spec.Document = doc
	return nil
}
