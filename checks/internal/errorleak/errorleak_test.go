package errorleak_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentready/agentready/checks/internal/errorleak"
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

// leakCase is one body and the one leak of a kind expected in it (want
// "kind: what", "" for none), with the exact redacted excerpt.
type leakCase struct {
	name, body, mediaType, request string
	want, excerpt                  string
}

func runKind(t *testing.T, kind errorleak.Kind, tests []leakCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got, excerpt string
			for _, l := range errorleak.Find([]byte(tt.body), tt.mediaType, tt.request) {
				if l.Kind == kind {
					got, excerpt = fmt.Sprintf("%s: %s", l.Kind, l.What), l.Excerpt
				}
			}
			if got != tt.want {
				t.Errorf("got %q (%q), want %q", got, excerpt, tt.want)
			}
			if tt.excerpt != "" && excerpt != tt.excerpt {
				t.Errorf("excerpt %q, want %q", excerpt, tt.excerpt)
			}
		})
	}
}

func TestFindPolicy(t *testing.T) {
	const (
		role       = "policy-name: role"
		permission = "policy-name: permission"
		scope      = "policy-name: scope"
		policy     = "policy-name: policy"
	)
	forbidden := func(msg string) string {
		b, _ := json.Marshal(map[string]any{"type": "about:blank", "title": "Forbidden", "status": 403, "detail": msg})
		return string(b)
	}
	runKind(t, errorleak.KindPolicy, []leakCase{
		{"rule name", forbidden("requires_role_admin"), problem, "/orders/1/refund", role, "requires_role_admin"},
		{"rule name in prose", forbidden("denied by rule requires_role_admin"), problem, "", role, "requires_role_admin"},
		{"spring role", forbidden("Access is denied: ROLE_ADMIN required"), problem, "", role, "ROLE_ADMIN"},
		{"spring scope authority", "insufficient authority SCOPE_orders:write", textPlain, "", scope, "SCOPE_orders:write"},
		{"spring expression", "Failed to authorize using hasRole('ADMIN')", textPlain, "", role, "ADMIN"},
		{"quoted permission", forbidden("missing permission 'orders:refund'"), problem, "", permission, "orders:refund"},
		{"double-quoted scope", forbidden(`scope "admin:write" required`), problem, "", scope, "admin:write"},
		{"role with a dash", forbidden("user lacks role billing-admin"), problem, "", role, "billing-admin"},
		{"permission after denied", forbidden("permission denied: orders.refund"), problem, "", permission, "orders.refund"},
		{"policy in PascalCase", forbidden("policy RefundApproverOnly denied the request"), problem, "", policy, "RefundApproverOnly"},
		{"camel-case rule", `{"error":"missingRefundPermission"}`, "application/json", "", permission, "missingRefundPermission"},
		{"kebab rule, requirement last", `{"code":"refund-permission-required"}`, "application/json", "", permission, "refund-permission-required"},
		{"roles list after a colon", forbidden("required roles: finance_approver"), problem, "", role, "finance_approver"},
		{"privilege", forbidden("privilege `orders.admin` not held"), problem, "", permission, "orders.admin"},
		{"authorization denied for", "authorization denied for billing:export", textPlain, "", permission, "billing:export"},
		{"html error page", "<h1>403</h1><p>Missing scope: &quot;orders:refund&quot;</p>", textHTML, "", scope, "orders:refund"},
		{"entitlement", forbidden("entitlement premium.export is not active"), problem, "", permission, "premium.export"},
		{"open policy agent rule", "policy data.authz.allow denied", textPlain, "", policy, "data.authz.allow"},

		{"forbidden", forbidden("Forbidden"), problem, "", "", ""},
		{"no permission in prose", forbidden("You do not have permission to do this."), problem, "", "", ""},
		{"insufficient permissions", forbidden("Insufficient permissions"), problem, "", "", ""},
		{"access denied", forbidden("Access denied"), problem, "", "", ""},
		{"requires authentication", forbidden("This operation requires authentication."), problem, "", "", ""},
		{"admin in prose", forbidden("The admin will review your order."), problem, "", "", ""},
		{"role named in prose", forbidden("refunds require the admin role"), problem, "", "", ""},
		{"oauth error code", `{"error":"insufficient_scope","error_description":"The request requires higher privileges"}`, "application/json", "", "", ""},
		{"grpc status", `{"code":7,"status":"PERMISSION_DENIED","message":"caller does not have permission"}`, "application/json", "", "", ""},
		{"validation of a role field", `{"errors":[{"field":"role_id","message":"role_id must be a number"}]}`, "application/json", "", "", ""},
		{"exception class", "PermissionError: [Errno 13] Permission denied: '/etc/shadow'", textPlain, "", "", ""},
		{"os error with a file", "permission denied: config.yaml", textPlain, "", "", ""},
		{"html aria role", `<div role="alert">Forbidden</div><th scope="col">x</th>`, textHTML, "", "", ""},
		{"cors policy", "blocked by CORS policy: No 'Access-Control-Allow-Origin' header", textPlain, "", "", ""},
		{"header name", "the Permissions-Policy header is missing", textPlain, "", "", ""},
		{"problem type uri", `{"type":"https://example.com/problems/missing-role-admin","title":"Forbidden","status":403}`, problem, "", "", ""},
		{"scope in prose", forbidden("This is out of scope for the current plan."), problem, "", "", ""},
		{"version after policy", forbidden("policy v1.2 applies"), problem, "", "", ""},
		{"spring role not found code", "ROLE_NOT_FOUND", textPlain, "", "", ""},
		{"directive after policy", forbidden("cache policy: no-store"), problem, "", "", ""},
		{"role-based in prose", forbidden("role-based access control denied this"), problem, "", "", ""},
	})
}

func TestFindHost(t *testing.T) {
	const (
		private   = "internal-host: private IP address"
		loopback  = "internal-host: loopback address"
		linkLocal = "internal-host: link-local address"
		host      = "internal-host: internal host"
	)
	runKind(t, errorleak.KindHost, []leakCase{
		{"postgres refused", detail("dial tcp 10.0.3.7:5432: connect: connection refused"), problem, "http://api.test/orders", private, "10.0.3.x:5432"},
		{"node econnrefused loopback", detail("connect ECONNREFUSED 127.0.0.1:6379"), problem, "http://api.test/orders", loopback, "127.0.0.x:6379"},
		{"upstream without port", detail("upstream 192.168.1.20 timed out"), problem, "", private, "192.168.1.x"},
		{"172.16/12", "could not reach backend at 172.20.4.1", textPlain, "", private, "172.20.4.x"},
		{"url", detail("GET http://10.1.2.3/internal/orders failed"), problem, "", private, "10.1.2.x"},
		{"loopback url", detail("fetch http://127.0.0.1/health failed"), problem, "http://api.test/x", loopback, "127.0.0.x"},
		{"cloud metadata", detail("GET http://169.254.169.254/latest/meta-data/ timed out"), problem, "", linkLocal, "169.254.169.x"},
		{"apache signature", "<address>Apache/2.4.41 (Ubuntu) Server at 10.20.0.5 Port 80</address>", textHTML, "", private, "10.20.0.x"},
		{"ipv6 ula", detail("dial tcp [fd12:3456:789a:1::5]:8080: i/o timeout"), problem, "", private, "[fd12:3456:789a:1::x]:8080"},
		{"kubernetes service", detail("upstream orders.prod.svc.cluster.local:8080 unavailable"), problem, "", host, "x.prod.svc.cluster.local:8080"},
		{"cluster name without context", detail("orders.prod.svc.cluster.local returned 503"), problem, "", host, "x.prod.svc.cluster.local"},
		{"internal with port", detail("Connection refused: orders-db.prod.internal:5432"), problem, "", host, "x.prod.internal:5432"},
		{"internal in url", `{"instance":"http://billing.internal/invoices/1"}`, problem, "http://api.test/x", host, "x.internal"},
		{"corp host with context", "could not resolve host ldap01.corp", textPlain, "", host, "x.corp"},
		{"localdomain", detail("mail relay smtp.localdomain rejected the message"), problem, "", host, "x.localdomain"},
		{"localhost with port", detail("request to localhost:9200 failed"), problem, "http://api.test/", host, "localhost:9200"},
		{"loopback of another port", detail("connect ECONNREFUSED 127.0.0.1:5432"), problem, "http://127.0.0.1:8080/orders", loopback, "127.0.0.x:5432"},
		{"java exception", "java.net.ConnectException: Connection refused: db.internal/10.0.0.12:3306", textPlain, "", private, "10.0.0.x:3306"},

		{"version number", detail("requires version 10.0.1 or later"), problem, "", "", ""},
		{"four-part version", detail("System.Runtime, Version=10.0.0.0, Culture=neutral, server build"), problem, "", "", ""},
		{"build number", detail("build 10.2.3.4 of the server"), problem, "", "", ""},
		{"public ip", detail("upstream 8.8.8.8:53 timed out"), problem, "", "", ""},
		{"example.com", detail("see https://example.com/docs"), problem, "", "", ""},
		{"own host", `{"instance":"http://orders.internal:8080/orders/7","detail":"no such order"}`, problem, "http://orders.internal:8080/orders/7", "", ""},
		{"own loopback host", `{"instance":"http://127.0.0.1:8080/orders/7"}`, problem, "http://localhost:8080/orders/7", "", ""},
		{"date", detail("expired on 2024.10.01"), problem, "", "", ""},
		{"oid", detail("unsupported algorithm 1.2.840.10045.4.3.2"), problem, "", "", ""},
		{"private ip without context", detail("10.0.0.1 is not a valid order number"), problem, "", "", ""},
		{"loopback without port or url", detail("connect to 127.0.0.1 failed"), problem, "", "", ""},
		{"octet out of range", detail("upstream 10.0.0.256 failed"), problem, "", "", ""},
		{"longer dotted number", detail("upstream 10.0.0.1.5 failed"), problem, "", "", ""},
		{"django settings module", detail("No module named 'app.settings.local'"), problem, "", "", ""},
		{"java package", "at jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)", textPlain, "", "", ""},
		{"wcf service file", detail("endpoint https://api.example.com/Orders.svc not found"), problem, "", "", ""},
		{"module name with a host word", detail("server module app.local failed to load"), problem, "", "", ""},
		{"localhost without port", detail("redirect to http://localhost/callback is not registered"), problem, "", "", ""},
		{"time of day", detail("retry after 12:30:45"), problem, "", "", ""},
		{"client address echoed", detail("your address 192.168.1.50 is not on the allow list"), problem, "", "", ""},
		{"mac address", detail("device fd:12:34:56:78:9a rejected"), problem, "", "", ""},
	})
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
	for name, body := range map[string]string{
		"deep": deep, "huge": huge, "escapes": "\x1b]0;pwn\x07 /etc/passwd \x1b[2J",
		"dotted numbers":  strings.Repeat("10.0.0.", 60000),
		"colons":          strings.Repeat("fd00:", 60000),
		"host labels":     strings.Repeat("a-", 60000) + ".internal",
		"policy words":    strings.Repeat("role a-b ", 40000),
		"identifiers":     strings.Repeat("missing_role_id ", 30000),
		"escaped in host": "upstream \x1b[2Jdb.internal:5432",
	} {
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
	f.Add([]byte(detail("dial tcp 10.0.3.7:5432 via [fd12::1]:80 and db.prod.internal:1 or localhost:9")), problem)
	f.Add([]byte("missing permission 'orders:refund' requires_role_admin ROLE_ADMIN hasRole('A')"), textPlain)
	f.Fuzz(func(t *testing.T, body []byte, mediaType string) {
		for _, l := range errorleak.Find(body, mediaType, "http://api.test/x") {
			if len(l.Excerpt) > 130 {
				t.Errorf("excerpt too long: %d", len(l.Excerpt))
			}
			if l.What == "" || l.Phrase() == "" {
				t.Errorf("leak %+v says nothing", l)
			}
		}
		if l, ok := errorleak.FindPolicy(string(body)); ok && (l.Kind != errorleak.KindPolicy || l.Excerpt == "") {
			t.Errorf("FindPolicy = %+v", l)
		}
	})
}
