package sanitize

import "testing"

func TestMarkdownRendersAsText(t *testing.T) {
	for in, want := range map[string]string{
		"![x](http://evil/i.png)":  `!\[x\](http://evil/i.png)`,
		"[link](http://evil)":      `\[link\](http://evil)`,
		"@team":                    "@\u200bteam",
		"<img src=x> <http://e/>":  "&lt;img src=x&gt; &lt;http://e/&gt;",
		"**b** `c` | ~s~ # h &amp": `\*\*b\*\* \` + "`c\\`" + ` \| \~s\~ \# h &amp;amp`,
		"one\n\ntwo":               "one\n\ntwo",
	} {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
	}
}
