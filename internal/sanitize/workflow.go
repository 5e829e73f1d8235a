package sanitize

import (
	"io"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A CI runner reads a step's output line by line and acts on workflow
// commands in it: GitHub's runner on a line that starts with "::" once
// leading whitespace is trimmed (so indenting does not defuse it), and on
// "##[" anywhere in a line (the legacy form). A line may end at \n or \r.
// Text from the scanned app that lands in such a place could set outputs,
// mask log text or raise annotations, so WorkflowFilter defuses it with a
// visible backslash: "\::error::" and "##\[error]".
const commandEscape = '\\'

// WorkflowFilter passes text on to an io.Writer with every workflow command
// defused. It keeps what it needs of the current line across writes, so a
// command split over several writes is still caught; Flush writes what is
// held back. It is safe for concurrent use.
type WorkflowFilter struct {
	mu  sync.Mutex
	w   io.Writer
	out []byte
	// head holds what follows the current line's leading whitespace while
	// it could still begin a command: a ':', or the first bytes of a rune
	// that may be whitespace. inLine is set once that is decided.
	head   []byte
	inLine bool
	// hashes counts the '#' just written on this line, up to two.
	hashes int
}

// NewWorkflowFilter returns a filter writing to w.
func NewWorkflowFilter(w io.Writer) *WorkflowFilter {
	return &WorkflowFilter{w: w}
}

// Write defuses p and writes the result; it reports len(p) on success.
func (f *WorkflowFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out = f.out[:0]
	for _, c := range p {
		f.feed(c)
	}
	if len(f.out) > 0 {
		if _, err := f.w.Write(f.out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes the bytes held back at the start of an unfinished line; they
// begin no command.
func (f *WorkflowFilter) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.head) == 0 {
		return nil
	}
	_, err := f.w.Write(f.head)
	f.head = f.head[:0]
	return err
}

// Unwrap is the writer the filter writes to, so that callers can still
// tell whether output goes to a terminal.
func (f *WorkflowFilter) Unwrap() io.Writer { return f.w }

func (f *WorkflowFilter) feed(c byte) {
	if c == '\n' || c == '\r' {
		f.out = append(f.out, f.head...)
		f.out = append(f.out, c)
		f.head, f.inLine, f.hashes = f.head[:0], false, 0
		return
	}
	if f.inLine {
		f.emit(c)
		return
	}
	f.head = append(f.head, c)
	switch lineStart(f.head) {
	case startUndecided:
		return
	case startCommand:
		f.out = append(f.out, commandEscape)
		f.inLine = true
	case startText:
		f.inLine = true
	}
	// startSpace: the whitespace goes out now, and the line start is still
	// to be decided.
	for _, b := range f.head {
		f.emit(b)
	}
	f.head = f.head[:0]
}

// emit writes one byte of the line, defusing "##[".
func (f *WorkflowFilter) emit(c byte) {
	switch {
	case c == '#':
		f.hashes = min(f.hashes+1, 2)
	case c == '[' && f.hashes == 2:
		f.out = append(f.out, commandEscape)
		f.hashes = 0
	default:
		f.hashes = 0
	}
	f.out = append(f.out, c)
}

// What the bytes held at the start of a line turn out to be.
const (
	startUndecided = iota // more bytes are needed to tell
	startSpace            // one whitespace rune, which the runner trims
	startCommand          // "::": a workflow command
	startText             // anything else: the line begins no command
)

// lineStart classifies head, the bytes after the line's leading whitespace
// so far: at most a ':' and one more byte, or one rune.
func lineStart(head []byte) int {
	if head[0] == ':' {
		switch {
		case len(head) == 1:
			return startUndecided
		case head[1] == ':':
			return startCommand
		}
		return startText
	}
	if !utf8.FullRune(head) {
		return startUndecided
	}
	if r, _ := utf8.DecodeRune(head); unicode.IsSpace(r) {
		return startSpace
	}
	return startText
}
