package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentready/agentready/internal/mcp"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
	"github.com/agentready/agentready/probe/mcpclient"
	"github.com/agentready/agentready/report/json"
	"github.com/agentready/agentready/report/text"
)

func newMCPCmd(e *env) *cobra.Command {
	var format string
	var headers []string
	var timeout time.Duration
	var verbose bool
	var tlsOpts tlsFlags
	cmd := &cobra.Command{
		Use:   "mcp URL",
		Short: "Detect an MCP endpoint's revision and print its tool catalog",
		Long: `mcp sends only read-only MCP requests to URL: server/discover, then initialize
and notifications/initialized only on positive evidence of a legacy server, then
tools/list (every page, twice), the other list methods, and DELETE of the session
it opened. It never calls a tool. Only a JSON-RPC -32601 or an HTTP 400, 404,
405, 406 or 501 to the probe leads to the legacy handshake; any other failure
(401, 403, 429, another 4xx, a 5xx, a network error) is reported and never leads
to a fallback.

It prints the revision verdict with its reasoning and the catalog: each tool's
name, hints, a schema summary, its fingerprint and its token count, and the
catalog's fingerprint.

Exit codes: 0 the endpoint spoke MCP and was listed; 2 usage error; 3 the
endpoint could not be reached, refused the probe, or is not an MCP endpoint.`,
		Example: `  agentready mcp http://127.0.0.1:8080/mcp
  agentready mcp --format json https://api.example.com/mcp`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError("--format %q: want text or json", format)
			}
			u, err := parseMCPURL(args[0])
			if err != nil {
				return err
			}
			if timeout <= 0 {
				return usageError("--timeout must be positive")
			}
			h, err := parseHeaders(headers)
			if err != nil {
				return err
			}
			tlsConfig, err := tlsOpts.config()
			if err != nil {
				return err
			}
			pc := probe.Config{Headers: h, Timeout: timeout, TLS: tlsConfig}
			sendUserinfo(u, &pc)
			e.scrubbing(scan.Scrubber(scan.Options{Probe: pc}))
			if verbose {
				pc.Log = e.logVerbosely(e.stderr)
			}
			cfg := probe.MCPConfig(pc, version())
			s, err := mcpclient.Collect(cmd.Context(), cfg, mcp.Endpoint{URL: u.String(), Source: "command line"})
			if err != nil {
				return &ExitError{Code: ExitIncomplete, Err: withTLSHint(err)}
			}
			if err := e.writeAs(e.stdout, format, func(w io.Writer) error { return writeMCP(w, format, s) }); err != nil {
				return &ExitError{Code: ExitIncomplete, Err: err}
			}
			return mcpExit(cmd.Context(), s)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringArrayVarP(&headers, "header", "H", nil, "send 'Name: value' on every request (repeatable; redacted in the output unless the field carries no credential, like Accept)")
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "timeout per request")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log every request on stderr")
	tlsOpts.register(cmd.Flags())
	return cmd
}

// parseMCPURL validates an MCP endpoint given on the command line.
func parseMCPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usageError("MCP endpoint %s: want an absolute http or https URL", shownURL(raw))
	}
	return u, nil
}

func parseHeaders(raw []string) (http.Header, error) {
	h := http.Header{}
	for _, line := range raw {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, usageError("--header %q: want 'Name: value'", line)
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}

func mcpExit(ctx context.Context, s *mcp.Snapshot) error {
	switch {
	case ctx.Err() != nil:
		return &ExitError{Code: ExitIncomplete, Err: errors.New("interrupted")}
	case s.Verdict.Refused != "":
		return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("revision not determined, no fallback: %s", s.Verdict.Refused)}
	case s.Verdict.Era == mcp.EraNone:
		return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("not an MCP endpoint: %s", s.Verdict.Reason)}
	case len(s.Listings) == 0 || !s.Listings[0].Complete:
		problem := "no listing"
		if len(s.Listings) > 0 {
			problem = s.Listings[0].Problem
		}
		return &ExitError{Code: ExitIncomplete, Err: fmt.Errorf("tools/list incomplete: %s", problem)}
	}
	return nil
}

// writeMCP renders the snapshot in format, text or json; the reporters
// own how it looks.
func writeMCP(w io.Writer, format string, s *mcp.Snapshot) error {
	if format == "json" {
		// The definitions themselves, so that the output is a catalog
		// `agentready lint --mcp-tools` can judge offline.
		info := s.Info()
		if info != nil {
			info.ToolsList = s.ToolsList()
		}
		return jsonreport.WriteMCP(w, info)
	}
	return text.WriteMCP(w, s.Info())
}
