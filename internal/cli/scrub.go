package cli

import (
	"bytes"
	"io"

	"github.com/agentready/agentready/internal/exchange"
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
