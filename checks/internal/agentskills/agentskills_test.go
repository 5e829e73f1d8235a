package agentskills

import (
	"strings"
	"testing"

	"github.com/agentready/agentready/internal/longtest"
)

const digest = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func entry(name, typ, desc, url, dig string) string {
	return `{"name":"` + name + `","type":"` + typ + `","description":"` + desc + `","url":"` + url + `","digest":"` + dig + `"}`
}

func TestParseIndex(t *testing.T) {
	good := entry("git-workflow", "skill-md", "Git.", "/s/SKILL.md", digest)
	for _, tt := range []struct{ body, want string }{
		{`{"$schema":"https://schemas.agentskills.io/discovery/0.2.0/schema.json","skills":[` + good + `]}`, ""},
		{`{"skills":[` + good + `]}`, "$schema"},
		{`{"$schema":"x","skills":[` + entry("Git_Workflow", "skill-md", "G", "/s", digest) + `]}`, "name"},
		{`{"$schema":"x","skills":[` + entry("a--b", "skill-md", "G", "/s", digest) + `]}`, "name"},
		{`{"$schema":"x","skills":[` + entry("a", "zip", "G", "/s", digest) + `]}`, "type"},
		{`{"$schema":"x","skills":[` + entry("a", "archive", "", "/s", digest) + `]}`, "description"},
		{`{"$schema":"x","skills":[` + entry("a", "archive", "d", "", digest) + `]}`, "url"},
		{`{"$schema":"x","skills":[` + entry("a", "archive", "d", "/s", strings.ToUpper(digest)) + `]}`, "digest"},
		{`{"$schema":"x","skills":[7]}`, "not a JSON object"},
	} {
		ix, err := ParseIndex([]byte(tt.body))
		if err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		got := ""
		if len(ix.Problems.Items) > 0 {
			got = ix.Problems.Items[0].Message
		}
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: problem %q, want %q", tt.body, got, tt.want)
		}
	}
	for _, body := range []string{"", "[]", `{"skills":{}}`, `{"files":[]}`} {
		if _, err := ParseIndex([]byte(body)); err == nil {
			t.Errorf("%q parsed", body)
		}
	}
}

func TestFrontmatter(t *testing.T) {
	name, desc, ok := Frontmatter([]byte("---\r\nname: order-workflow\r\ndescription: \"Take an order.\"\r\nmetadata:\r\n  name: x\r\n---\r\n# Body\n"))
	if !ok || name != "order-workflow" || desc != "Take an order." {
		t.Errorf("%q %q %v", name, desc, ok)
	}
	for _, body := range []string{"# no frontmatter", "---\nname: x\n", ""} {
		if _, _, ok := Frontmatter([]byte(body)); ok {
			t.Errorf("%q has frontmatter", body)
		}
	}
}

func TestBounds(t *testing.T) {
	longtest.Skip(t, "parses a skills index and a frontmatter of 10 MB")
	e := entry("Bad", "x", "d", "/s", "x") + ","
	ix, err := ParseIndex([]byte(`{"skills":[` + strings.Repeat(e, 10<<20/len(e)) + `{}]}`))
	if err != nil || len(ix.Skills) != MaxSkills || len(ix.Problems.Items) != MaxProblems || ix.Count <= MaxSkills {
		t.Errorf("skills %d problems %d err %v", len(ix.Skills), len(ix.Problems.Items), err)
	}
	if _, _, ok := Frontmatter([]byte("---\n" + strings.Repeat("k: v\n", 10<<20/5) + "---\n")); ok {
		t.Error("frontmatter past the bound was read")
	}
}

func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(`{"$schema":"x","skills":[` + entry("a", "skill-md", "d", "/s", digest) + `]}`))
	f.Add([]byte("---\nname: a\n---\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		if ix, err := ParseIndex(body); err == nil && (len(ix.Skills) > MaxSkills || len(ix.Problems.Items) > MaxProblems) {
			t.Fatal("bounds broken")
		}
		Frontmatter(body)
	})
}
