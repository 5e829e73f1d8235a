package probe

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

func TestSharedHeadersRecordOneScrubbedCopyPerHeader(t *testing.T) {
	const secret = "tenant-7f3a9c2e51"
	secrets := exchange.NewSecrets(http.Header{"X-Tenant": {secret}})
	redact := map[string]bool{"X-Tenant": true}
	var s sharedHeaders
	sent := http.Header{"X-Tenant": {secret}, "Accept": {"application/json"}, "X-Echo": {"id=" + secret}}

	a := s.recorded(sent, redact, secrets)
	b := s.recorded(sent.Clone(), redact, secrets)
	if reflect.ValueOf(a).UnsafePointer() != reflect.ValueOf(b).UnsafePointer() {
		t.Error("the same header sent twice was recorded as two copies")
	}
	if got := a.Get("X-Tenant"); got != exchange.Redacted {
		t.Errorf("X-Tenant recorded as %q", got)
	}
	if got := a.Get("X-Echo"); got != "id="+exchange.Redacted {
		t.Errorf("X-Echo recorded as %q, want the secret scrubbed", got)
	}
	if sent.Get("X-Tenant") != secret {
		t.Error("recording changed the header sent")
	}
	other := s.recorded(http.Header{"Accept": {"text/html"}}, redact, secrets)
	if other.Get("Accept") != "text/html" {
		t.Errorf("a different header recorded as %v", other)
	}
}
