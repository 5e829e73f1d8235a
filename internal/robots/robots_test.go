package robots

import (
	"reflect"
	"strings"
	"testing"
)

const sample = "\ufeffUser-agent: *\r\nDisallow: /private/ # comment\r\nAllow: /private/ok$\n\nSitemap: https://e.test/sitemap.xml\nuser-agent: GPTBot\nUSER-AGENT: ClaudeBot\nDisallow: /\nCrawl-delay: 10\n"

func TestParse(t *testing.T) {
	f := Parse([]byte(sample))
	if len(f.Errors) != 0 {
		t.Fatalf("errors %+v", f.Errors)
	}
	want := []Group{
		{Agents: []string{"*"}, Line: 1, Rules: []Rule{{Pattern: "/private/", Line: 2}, {Allow: true, Pattern: "/private/ok$", Line: 3}}},
		{Agents: []string{"GPTBot", "ClaudeBot"}, Line: 6, Rules: []Rule{{Pattern: "/", Line: 8}}},
	}
	if !reflect.DeepEqual(f.Groups, want) {
		t.Errorf("groups\n got %+v\nwant %+v", f.Groups, want)
	}
	if want := []Record{{Value: "https://e.test/sitemap.xml", Line: 5}}; !reflect.DeepEqual(f.Sitemaps, want) {
		t.Errorf("sitemaps %+v", f.Sitemaps)
	}
}

func TestParseErrors(t *testing.T) {
	f := Parse([]byte("Disallow: /early\nUser-agent: *\nDisalow /typo\nUser-agent:\nbad key: x\nUnknown-Directive: fine\n"))
	var lines []int
	for _, e := range f.Errors {
		lines = append(lines, e.Line)
	}
	if want := []int{1, 3, 4, 5}; !reflect.DeepEqual(lines, want) {
		t.Errorf("error lines %v, want %v (%+v)", lines, want, f.Errors)
	}
}

func TestVerdict(t *testing.T) {
	f := Parse([]byte(sample + "User-agent: eq\nDisallow: /a\nAllow: /a\nUser-agent: wild\nDisallow: /*.json$\nDisallow: /x*y\n"))
	tests := []struct {
		agent, path string
		allowed     bool
	}{
		{"agentready", "/private/x", false},
		{"agentready", "/private/ok", true},
		{"agentready", "/private/ok/more", false},
		{"agentready", "/public", true},
		{"gptbot", "/anything", false},
		{"ClaudeBot", "/robots.txt", true},
		{"eq", "/a", true},
		{"wild", "/orders.json", false},
		{"wild", "/orders", true},
		{"wild", "/o/orders.json", false},
		{"wild", "/orders.json?x", true},
		{"wild", "/x/1/y/z", false},
		{"wild", "/x/1/z", true},
	}
	for _, tt := range tests {
		if got, _ := f.Verdict(tt.agent, tt.path); got != tt.allowed {
			t.Errorf("Verdict(%s, %s) = %v, want %v", tt.agent, tt.path, got, tt.allowed)
		}
	}
}

func TestMatch(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true}, {"/a*", "/a", true}, {"/a$", "/ab", false}, {"*", "/x", true},
		{"/a*b*c$", "/aXbYc", true}, {"/a*b*c$", "/aXbYcd", false}, {"/fish*.php", "/fish.php", true},
		{"/**", "/x", true}, {"/a", "/b", false},
	} {
		if got := Match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestBounds(t *testing.T) {
	huge := strings.Repeat("garbage line without colon\n", 1<<20/27*10)
	f := Parse([]byte(huge))
	if !f.Truncated || len(f.Errors) != MaxErrors || f.ErrorCount <= MaxErrors {
		t.Errorf("truncated=%v errors=%d count=%d", f.Truncated, len(f.Errors), f.ErrorCount)
	}
	long := Parse([]byte("User-agent: *\nDisallow: /" + strings.Repeat("*a", 1<<20)))
	if ok, _ := long.Verdict("x", "/"+strings.Repeat("a", 5000)); !ok {
		t.Error("over-long pattern matched")
	}
	if got := Parse([]byte(strings.Repeat("\r", 10<<20))); got.Lines == 0 {
		t.Error("no lines counted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("Disallow: /\nUser-agent:\n:\n#\n\r\r\n"))
	f.Add([]byte("Content-Signal: search=yes\nUser-agent: *\nContent-signal: ai-train=no, =,\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		rf := Parse(body)
		if len(rf.Errors) > MaxErrors || rf.ErrorCount < len(rf.Errors) {
			t.Fatalf("error bound broken: %d kept of %d", len(rf.Errors), rf.ErrorCount)
		}
		for _, g := range rf.Groups {
			if len(g.Agents) == 0 {
				t.Fatal("group without user agents")
			}
		}
		rf.Verdict("GPTBot", "/orders/1")
		if len(rf.Signals) > MaxSignals {
			t.Fatalf("%d signals kept", len(rf.Signals))
		}
		for _, sg := range rf.Signals {
			if sg.Group >= len(rf.Groups) {
				t.Fatalf("signal in group %d of %d", sg.Group, len(rf.Groups))
			}
			if _, problems := ParsePreferences(sg.Value); len(problems) > MaxErrors {
				t.Fatal("problem bound broken")
			}
		}
		rf.Verdict("*", string(body[:min(len(body), 64)]))
	})
}

func TestContentSignals(t *testing.T) {
	f := Parse([]byte("Content-Signal: search=yes\nUser-Agent: *\ncontent-signal: search=yes,ai-train=no\nAllow: /\n"))
	if len(f.Signals) != 2 || f.Signals[0].Group != -1 || f.Signals[1].Group != 0 || f.Signals[1].Line != 3 || len(f.Groups[0].Rules) != 1 {
		t.Fatalf("signals %+v groups %+v", f.Signals, f.Groups)
	}
	prefs, problems := ParsePreferences(" search = yes , AI-Train=No, use=reference,ai_train=no, ai-input=true, foo ,")
	if len(prefs) != 3 || prefs[1] != (Preference{"ai-train", "no"}) || len(problems) != 3 {
		t.Errorf("prefs %+v problems %q", prefs, problems)
	}
	many := Parse([]byte("User-agent: *\n" + strings.Repeat("Content-Signal: "+strings.Repeat("x=1,", 1000)+"\n", 300)))
	if len(many.Signals) != MaxSignals {
		t.Errorf("%d signals kept", len(many.Signals))
	}
	if _, problems := ParsePreferences(many.Signals[0].Value); len(problems) != MaxErrors {
		t.Errorf("%d problems kept", len(problems))
	}
}
