package sanitize

import "strings"

// markdownEscaper neutralises every character that starts Markdown or HTML
// syntax in GitHub-flavoured Markdown: emphasis, code spans, links and
// images (with the brackets escaped, parentheses and ! are inert), tables,
// strike-through, headings, raw HTML, autolinks in angle brackets and
// entities. Backslash escapes are valid for all ASCII punctuation, so
// escaping more than needed is harmless.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`,
	"`", "\\`",
	"*", `\*`,
	"_", `\_`,
	"[", `\[`,
	"]", `\]`,
	"|", `\|`,
	"~", `\~`,
	"#", `\#`,
	"<", "&lt;",
	">", "&gt;",
	"&", "&amp;",
	// A zero-width space after @ keeps the text from mentioning a user or
	// team where the Markdown is rendered (a pull-request comment, a code
	// scanning alert).
	"@", "@\u200b",
)

// Markdown makes untrusted text render as itself in GitHub-flavoured
// Markdown: no image is fetched, no link or mention made, no HTML run.
// Line breaks are kept, so paragraphs stay paragraphs.
func Markdown(s string) string { return markdownEscaper.Replace(s) }
