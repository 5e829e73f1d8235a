package cli

import (
	"bytes"
	"io"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/sanitize"
	"github.com/agentready/agentready/probe"
)

// scrubbing makes everything e prints from now on free of secrets, the
// header values the scan sends (see exchange.Secrets): stderr, which carries
// the -v log, the active probes' plan and the final error, and each
// document written with e.write.
func (e *env) scrubbing(secrets *exchange.Secrets) {
	if secrets == nil {
		return
	}
	e.secrets = secrets
	e.stderr = scrubbedWriter{w: e.stderr, secrets: secrets, issued: e.issued}
}

// scrub replaces the secrets known before the scan, then the credentials
// issued during it (OAuth access tokens), known only as they are issued.
// When cut is set, b was truncated, and a tail that begins a secret is
// replaced too.
func scrub(b []byte, cut bool, secrets *exchange.Secrets, issued *probe.SecretBook) []byte {
	b, _ = secrets.Bytes(b, cut)
	b, _ = issued.Secrets().Bytes(b, cut)
	return b
}

// write renders a whole document, then writes it to w with the secrets
// replaced: scrubbed whole, no echo is split between two writes.
func (e *env) write(w io.Writer, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	_, err := w.Write(scrub(buf.Bytes(), false, e.secrets, e.issued))
	return err
}

// writeAs is write for a document in format. Text and Markdown go to a CI
// log line by line, where a runner acts on workflow commands ("::error::",
// "##[group]"), and quote the scanned app; written anywhere but a terminal
// (a pipe, a CI log, a file a later step prints), their lines pass through
// sanitize.WorkflowFilter, which defuses a command with a visible
// backslash (Markdown renders "\::" as "::"). The filter sees the document
// once its secrets are replaced, so that no secret is split by it. The
// other formats are written byte for byte: a JSON, SARIF, HTML or JUnit
// line never begins with "::", and a "##[" inside one of their strings is
// no command to a runner that is not printing them.
func (e *env) writeAs(w io.Writer, format string, render func(io.Writer) error) error {
	if !workflowLines(format) || isTerminal(w) {
		return e.write(w, render)
	}
	safe := sanitize.NewWorkflowFilter(w)
	if err := e.write(safe, render); err != nil {
		return err
	}
	return safe.Flush()
}

// workflowLines reports whether a CI log shows a document in format as the
// lines it is made of.
func workflowLines(format string) bool { return format == "text" || format == "markdown" }

// scrubbedWriter scrubs each write on its own: what goes to stderr is
// written a line or a message at a time.
type scrubbedWriter struct {
	w       io.Writer
	secrets *exchange.Secrets
	issued  *probe.SecretBook
}

func (s scrubbedWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(scrub(p, false, s.secrets, s.issued)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap is the writer behind, for isTerminal.
func (s scrubbedWriter) Unwrap() io.Writer { return s.w }
