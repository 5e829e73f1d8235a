package scan_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/probe"
)

// headBodyApp is a JSON API whose HEAD handler writes the body after the
// header on the raw connection, as a hand-rolled server may; net/http's own
// server never does. The body echoes a secret the scan sent.
func headBodyApp() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const body = `{"id":1,"_links":{"self":{"href":"/"}}}`
		if r.Method != http.MethodHead {
			w.Header().Set("Content-Type", "application/hal+json")
			_, _ = w.Write([]byte(body))
			return
		}
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/hal+json\r\nContent-Length: 39\r\n\r\n" +
			body + " token=" + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		_ = buf.Flush()
	})
}

func TestAHeadResponseWithContentIsReported(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-head-token-0123456789"
	rep, err := runOn(t, headBodyApp(), scan.Options{Probe: probe.Config{Headers: http.Header{"Authorization": {"Bearer " + secret}}}})
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, f := range rep.Findings {
		if f.CheckID == "negotiation-head-body" {
			msgs = append(msgs, f.Message)
		}
	}
	if len(msgs) == 0 || !strings.Contains(msgs[0], "bytes of content followed the header") {
		t.Errorf("negotiation-head-body findings %q, want the HEAD's content reported", msgs)
	}
	// The content echoed the credential: the evidence shows it replaced.
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), secret) {
		t.Error("the report holds the credential the HEAD's content echoed")
	}
}
