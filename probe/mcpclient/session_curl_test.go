package mcpclient

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/exchange"
)

// TestSessionCurlLinesReplay: the scanner deletes the session it opened, so
// a curl line naming that session's ID would replay nothing. Each line of a
// request sent in the session opens a new one first, and works once the
// scan is over.
func TestSessionCurlLinesReplay(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	srv, rec := serve(t, legacySDK())
	snap := collect(t, srv.URL)
	if snap.SessionID == "" || rec.seen()[len(rec.seen())-1] != "DELETE" {
		t.Fatalf("the scan did not open and delete a session: %v", rec.seen())
	}
	var list *exchange.Exchange
	for _, c := range snap.Calls {
		if c.Method == "tools/list" {
			list = c.Exchange
			break
		}
	}
	if list == nil {
		t.Fatal("no tools/list call")
	}
	line := list.Curl()
	if strings.Contains(line, snap.SessionID) {
		t.Errorf("the curl line names the deleted session %s:\n%s", snap.SessionID, line)
	}
	out, err := exec.CommandContext(context.Background(), sh, "-c", line).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " 200") || !strings.Contains(string(out), `"ping"`) {
		t.Errorf("replaying %s\ngave (%v):\n%s", line, err, out)
	}

	// The recorded request itself, sent again, is refused: its session is gone.
	last := line[strings.LastIndex(line, " && ")+4:]
	out, _ = exec.CommandContext(context.Background(), sh, "-c",
		strings.Replace(last, `"Mcp-Session-Id: $MCP_SESSION_ID"`, "'Mcp-Session-Id: "+snap.SessionID+"'", 1)).CombinedOutput()
	if strings.Contains(string(out), `"ping"`) || !strings.Contains(string(out), " 404") {
		t.Errorf("the deleted session still answers; the test proves nothing:\n%s", out)
	}
	t.Logf("%s", line)
}
