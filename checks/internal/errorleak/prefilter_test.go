package errorleak

import (
	"regexp/syntax"
	"strings"
	"testing"
)

// String shows what a clause asks for: its literals joined by |, a folded
// one as (?i)….
func (c clause) String() string {
	var parts []string
	for _, l := range c {
		s := l.s
		if l.fold {
			s = "(?i)" + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "|")
}

func TestRequiredLiterals(t *testing.T) {
	for _, tt := range []struct {
		expr string
		want string // the clauses, space-separated; "" when nothing is required
	}{
		{`Traceback \(most recent`, "Traceback (most recent"},
		{`\bat\s+x\(`, "at x("},
		{`(?i)\bselect\s+from`, "(?i)SELECT (?i)FROM"},
		{`\b(ROLE|SCOPE)_x`, "ROLE|SCOPE _x"},
		// A branch without a literal leaves the alternation unknown.
		{`ab|\d+`, ""},
		// Parts that may be absent or repeated zero times require nothing;
		// a part repeated at least once requires what it does once.
		{`a(?:bc)?d`, "a d"},
		{`x(?:yz)*`, "x"},
		{`(?:/ab){2,}`, "/ab"},
		{`(?:/ab){0,3}`, ""},
		// Each branch brings the clause whose shortest literal is longest
		// (the parser has made long1|long2 into long[12]).
		{`q(?:long1|long2)|r`, "long|r"},
		// A character class is not a literal.
		{`[ab]c`, "c"},
		{`\d{1,3}\.\d{1,3}`, "."},
		// The matcher reads an invalid byte as U+FFFD: never required.
		{"\uFFFD", ""},
	} {
		tree, err := syntax.Parse(tt.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range required(tree) {
			got = append(got, c.String())
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s: required %q, want %q", tt.expr, got, tt.want)
		}
	}
}

// prefilterTexts are texts every filtered expression is tried on: what
// the detectors' tests feed them, in other cases, and with the runes (?i)
// takes for ASCII letters (the Kelvin sign for k, the long s for s).
var prefilterTexts = []string{
	"at com.acme.Orders.find(Orders.java:42)", "goroutine 7 [running]:", "main.go:88 +0x1d",
	"Traceback (most recent call last):", `File "/srv/app/views.py", line 12`,
	"at Object.<anonymous> (/app/server.js:10:15)", "at process (node:internal/process/task_queues:95:5)",
	`at Orders.Api.Find(Int32 id) in C:\src\Orders.cs:line 42`, "--- End of stack trace from previous location",
	"at System.Data.SqlClient.SqlConnection.OnError(SqlException e)\n at System.Data.SqlClient.TdsParser.Run(RunBehavior r)",
	"app/models/order.rb:12:in `find'", "You have an error in your SQL syntax", "ERROR 1064 (42000)",
	"SQLSTATE[42S22]", "ORA-00942: x", `syntax error at or near "FROM"`, `duplicate key value violates unique constraint "k"`,
	"PG::UndefinedTable", "psycopg2.errors.UndefinedTable", "Incorrect syntax near 'x'", "SQLITE_CONSTRAINT", "sqlite3.OperationalError",
	"java.sql.SQLSyntaxErrorException", "org.hibernate.exception.SQLGrammarException",
	"select * from orders", "SeLeCt o.id from orders", "SELECT id, customer FROM orders", "ſelect * from orders",
	"insert into orders values (1)", "INSERT INTO orders (a) VALUES (1)", "update orders set a = 1", "delete from orders where id = 3",
	"you have <code>DEBUG = True</code>", "Werkzeug Debugger</title>", "<title>x Werkzeug Debugger</title>",
	"Action Controller: Exception caught", "Whoops, looks like something went wrong.", `Symfony\Component\ErrorHandler\x`,
	"Server Error in '/' Application.", "<b>Fatal error</b>: x in <b>/var/www/a.php</b> on line <b>1</b>",
	"PHP Warning: x in /var/www/a.php on line 3", "open /etc/agentready/config.yaml", `C:\inetpub\wwwroot\web.config`,
	"ROLE_ADMIN", "SCOPE_orders:write", "hasRole('ADMIN')", `hasAnyAuthority("orders:refund")`,
	"missing role 'billing-admin'", "requires permission orders:refund", "Scope: orders.write", "ſcope: orders.write",
	"Policy RefundPolicy", "permission denied: orders.refund", "Authorization denied for billing.admin",
	"requires_role_admin", "missingRefundPermission", "MISSING_ROLE_ADMIN", "refund-permission-required",
	"dial tcp 10.0.3.7:5432", "via [fd12::1]:80", "db.prod.internal:5432", "upstream db.INTERNAL", "localhost:9",
	"LOCALHOST:8080", "cache.svc.cluster.local", "ms.corp", "Kelvin: db.\u212Aube.local",
	"\xff\xfeat x(", "", "plain prose with nothing in it",
}

// TestPrefilterNeverHidesAMatch: a text any filtered expression matches
// meets that expression's clauses, in its own case, in upper and lower
// case, and with its ASCII letters swapped for the runes (?i) takes for them.
func TestPrefilterNeverHidesAMatch(t *testing.T) {
	if len(everyFiltered) < 20 {
		t.Fatalf("only %d filtered expressions registered", len(everyFiltered))
	}
	swapped := strings.NewReplacer("k", "\u212A", "K", "\u212A", "s", "\u017F", "S", "\u017F")
	for _, text := range prefilterTexts {
		for _, s := range []string{text, strings.ToUpper(text), strings.ToLower(text), swapped.Replace(text)} {
			assertPrefilterKeeps(t, s)
		}
	}
}

func assertPrefilterKeeps(t *testing.T, s string) {
	t.Helper()
	for _, f := range everyFiltered {
		if f.Regexp.MatchString(s) && !f.mayMatch(s) {
			t.Errorf("%q matches %s, whose clauses %v it does not meet", s, f.Regexp, f.need)
		}
	}
}

// TestPrefilterSkipsTexts: the clauses do rule texts out, or the filter
// would cost time for nothing.
func TestPrefilterSkipsTexts(t *testing.T) {
	skipped := 0
	for _, f := range everyFiltered {
		if !f.mayMatch("plain prose with nothing in it") {
			skipped++
		}
	}
	if skipped < len(everyFiltered)*3/4 {
		t.Errorf("prose is ruled out by %d of %d expressions", skipped, len(everyFiltered))
	}
}

func FuzzPrefilterNeverHidesAMatch(f *testing.F) {
	for _, s := range prefilterTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { assertPrefilterKeeps(t, s) })
}
