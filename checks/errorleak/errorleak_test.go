package errorleak_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/errorleak"
)

const (
	textPlain = "text/plain"
	textHTML  = "text/html"
	problem   = "application/problem+json"
)

// detail wraps a message as the detail of a problem document, JSON-escaped as
// a server would send it.
func detail(msg string) string {
	b, _ := json.Marshal(map[string]any{"type": "about:blank", "title": "Internal Server Error", "status": 500, "detail": msg})
	return string(b)
}

func TestFind(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		mediaType string
		path      string
		want      string // "kind: what", comma-joined; "" for no leak
	}{
		// Stack traces, one per platform.
		{"java in problem detail", detail("java.lang.NumberFormatException: For input string: \"x\"\n\tat java.base/java.lang.Integer.parseInt(Integer.java:652)\n\tat com.acme.orders.OrderController.list(OrderController.java:42)"),
			problem, "/orders", "stack-trace: Java stack trace"},
		{"java native method", "\tat sun.reflect.NativeMethodAccessorImpl.invoke0(Native Method)", textPlain, "", "stack-trace: Java stack trace"},
		{"go panic", "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:\nmain.handler(...)\n", textPlain, "", "stack-trace: Go stack trace"},
		{"go frame", "main.(*app).list(0xc000010000)\n\t/src/app/orders.go:88 +0x1d", textPlain, "", "stack-trace: Go stack trace, filesystem-path: file system path"},
		{"python traceback", "Traceback (most recent call last):\n  File \"/srv/app/views.py\", line 12, in list_orders\nValueError: bad", textPlain, "", "stack-trace: Python traceback, filesystem-path: file system path"},
		{"python frame in json", `{"error":"  File \"/usr/lib/python3.12/json/decoder.py\", line 353, in raw_decode"}`, "application/json", "", "stack-trace: Python traceback, filesystem-path: file system path"},
		{"node frame", "TypeError: Cannot read properties of undefined\n    at Object.<anonymous> (/app/server.js:10:15)\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)", textPlain, "", "stack-trace: Node.js stack trace, filesystem-path: file system path"},
		{"node internal only", "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)", textPlain, "", "stack-trace: Node.js stack trace"},
		{"express html page", "<pre>Error: boom<br> &nbsp; &nbsp;at Layer.handle [as handle_request] (/srv/api/node_modules/express/lib/router/layer.js:95:5)</pre>", textHTML, "", "stack-trace: Node.js stack trace, filesystem-path: file system path"},
		{".NET with line", "System.NullReferenceException: Object reference not set\n   at Orders.Api.OrdersController.Find(Int32 id) in C:\\src\\Orders\\OrdersController.cs:line 42", textPlain, "", "stack-trace: .NET stack trace, filesystem-path: Windows file system path"},
		{".NET two frames without lines", "   at System.Data.SqlClient.SqlConnection.OnError(SqlException exception, Boolean breakConnection)\n   at System.Data.SqlClient.TdsParser.Run(RunBehavior runBehavior)", textPlain, "", "stack-trace: .NET stack trace"},
		{"ruby", "app/models/order.rb:12:in `find'", textPlain, "", "stack-trace: Ruby backtrace"},

		// SQL.
		{"mysql", detail("You have an error in your SQL syntax; check the manual near ''1'' at line 1"), problem, "", "sql: MySQL error"},
		{"postgres", detail(`pq: syntax error at or near "FROM"`), problem, "", "sql: PostgreSQL error"},
		{"sqlstate", "SQLSTATE[42S22]: Column not found", textPlain, "", "sql: SQLSTATE error"},
		{"oracle", "ORA-00942: table or view does not exist", textPlain, "", "sql: Oracle error"},
		{"select star", detail("query failed: select * from orders where id = 'x'"), problem, "", "sql: SQL statement"},
		{"hibernate select", detail("could not execute query [select o1_0.id,o1_0.customer from orders o1_0 where o1_0.id=?]"), problem, "", "sql: SQL statement"},
		{"upper-case column list", "SELECT id, customer FROM orders WHERE id = 7", textPlain, "", "sql: SQL statement"},
		{"insert", "INSERT INTO orders (customer, item) VALUES ('a', 'b')", textPlain, "", "sql: SQL statement"},
		{"delete", "delete from orders where id = 3", textPlain, "", "sql: SQL statement"},

		// Paths.
		{"unix system path", detail("open /etc/agentready/config.yaml: permission denied"), problem, "", "filesystem-path: file system path"},
		{"home path", "failed to read /home/deploy/orders/data.csv", textPlain, "", "filesystem-path: file system path"},
		{"container source file", "error in /app/handlers/orders.py", textPlain, "", "filesystem-path: file system path"},
		{"windows path", detail(`Could not find a part of the path 'C:\inetpub\wwwroot\App_Data\orders.xml'.`), problem, "", "filesystem-path: Windows file system path"},

		// Debug pages.
		{"django", "<p>You&#x27;re seeing this error because you have <code>DEBUG = True</code> in your Django settings file.</p>", textHTML, "", "debug-page: Django debug page"},
		{"werkzeug", "<title>ZeroDivisionError // Werkzeug Debugger</title>", textHTML, "", "debug-page: Werkzeug debugger"},
		{"rails", "<title>Action Controller: Exception caught</title>", textHTML, "", "debug-page: Rails exception page"},
		{"asp.net", "<h1>Server Error in '/' Application.</h1>", textHTML, "", "debug-page: ASP.NET error page"},
		{"whoops", "<div class=\"Whoops container\">", textHTML, "", "debug-page: Laravel/Whoops error page"},
		{"php", "<b>Fatal error</b>:  Uncaught Error in <b>/var/www/html/index.php</b> on line <b>12</b>", textHTML, "", "filesystem-path: file system path, debug-page: PHP error"},

		// False positives that must stay silent.
		{"conformant problem", detail("there is no resource at /orders/agentready-missing-7f3c"), problem, "/orders/agentready-missing-7f3c", ""},
		{"url path in detail", detail("see /orders/42/payment for how to pay"), problem, "/orders/42", ""},
		{"url path echo under a system-looking root", detail("there is no resource at /home/feed/9"), problem, "/home/feed/9", ""},
		{"absolute url", detail("see https://docs.example.com/usr/share/guide and https://example.com/etc/x"), problem, "", ""},
		{"type and instance are URI references", `{"type":"/var/problems/not-found","instance":"/home/orders/1","title":"Not Found"}`, problem, "", ""},
		{"select in prose", detail("Please select one from the list of states, or select a state from the menu."), problem, "", ""},
		{"select list in prose lower case", detail("select red, green from the palette"), problem, "", ""},
		{"update in prose", detail("Update your profile settings to continue."), problem, "", ""},
		{"delete in prose", detail("You can delete from your cart any item you no longer want."), problem, "", ""},
		{"word at in prose", detail("The order was placed at System.Time and shipped at noon."), problem, "", ""},
		{"one dotnet-like call", detail("call at Orders.Api.Find(id) to retry"), problem, "", ""},
		{"go file mentioned", detail("see the main.go file"), problem, "", ""},
		{"container root without source file", detail("no data at /data/reports/2024"), problem, "", ""},
		{"relative path", detail("src/orders/handler.py is fine"), problem, "", ""},
		{"python word traceback", detail("a traceback is not shown"), problem, "", ""},
		{"date with slashes", detail("expired on 2024/01/02"), problem, "", ""},
		{"go net/http 404", "404 page not found\n", textPlain, "/x", ""},
		{"empty", "", problem, "", ""},
		{"not json under json type", "{not json at /etc/passwd", problem, "", "filesystem-path: file system path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range errorleak.Find([]byte(tt.body), tt.mediaType, tt.path) {
				got = append(got, fmt.Sprintf("%s: %s", l.Kind, l.What))
				if l.Excerpt == "" || len(l.Excerpt) > 130 || strings.ContainsAny(l.Excerpt, "\n\t") {
					t.Errorf("bad excerpt %q", l.Excerpt)
				}
			}
			if g := strings.Join(got, ", "); g != tt.want {
				t.Errorf("got %q, want %q", g, tt.want)
			}
		})
	}
}

func TestExcerptIsRedacted(t *testing.T) {
	tests := []struct {
		name, body, mustHave, mustNot string
	}{
		{"sql literal", "SELECT * FROM users WHERE email = 'alice@example.com'", "FROM users", "alice@example.com"},
		{"path middle", "open /home/deploy/secret-project/config/db.yml failed", "/home/…/db.yml", "secret-project"},
		{"java frame", "\tat com.acme.orders.OrderController.list(OrderController.java:42)", "OrderController.java:42", ""},
		{"python file path", "  File \"/srv/acme/internal/views.py\", line 12, in list", "line 12", "acme/internal"},
		{"go address", "goroutine 7 [running]:\nmain.handler(0xc000123456789a)", "goroutine 7", "c000123456789a"},
		{"windows", `C:\Users\alice\projects\orders\web.config`, `C:\Users\…\web.config`, "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leaks := errorleak.Find([]byte(tt.body), textPlain, "")
			if len(leaks) == 0 {
				t.Fatal("no leak found")
			}
			var all []string
			for _, l := range leaks {
				all = append(all, l.Excerpt)
			}
			joined := strings.Join(all, " | ")
			if !strings.Contains(joined, tt.mustHave) {
				t.Errorf("excerpts %q lack %q", joined, tt.mustHave)
			}
			if tt.mustNot != "" && strings.Contains(joined, tt.mustNot) {
				t.Errorf("excerpts %q keep %q", joined, tt.mustNot)
			}
		})
	}
}

func TestHostileBodies(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10000) + `"/etc/passwd"` + strings.Repeat("}", 10000)
	huge := strings.Repeat("at a.b(", 200000)
	for name, body := range map[string]string{"deep": deep, "huge": huge, "escapes": "\x1b]0;pwn\x07 /etc/passwd \x1b[2J"} {
		t.Run(name, func(t *testing.T) {
			for _, l := range errorleak.Find([]byte(body), problem, "") {
				if strings.ContainsRune(l.Excerpt, 0x1b) {
					t.Errorf("escape kept in %q", l.Excerpt)
				}
			}
		})
	}
}

func FuzzFind(f *testing.F) {
	f.Add([]byte(detail("at com.a.B.c(B.java:1) /etc/passwd select * from t")), problem)
	f.Add([]byte("<b>Fatal error</b>: x in <b>/var/www/a.php</b> on line <b>1</b>"), textHTML)
	f.Fuzz(func(t *testing.T, body []byte, mediaType string) {
		for _, l := range errorleak.Find(body, mediaType, "/x") {
			if len(l.Excerpt) > 130 {
				t.Errorf("excerpt too long: %d", len(l.Excerpt))
			}
		}
	})
}
