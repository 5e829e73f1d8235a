package markdown

// Inline is an untrusted string as one line of Markdown that renders as the
// literal text, bounded to limit bytes before escaping; other renderers of
// Markdown (report diff) use it to show what the scanned app said.
func Inline(s string, limit int) string { return text(s, limit) }

// Code is an untrusted string as an inline code span, safe in a table cell.
func Code(s string, limit int) string { return code(s, limit, true) }
