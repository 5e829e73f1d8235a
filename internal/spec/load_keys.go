package spec

import (
	"fmt"
	"strconv"

	yaml "github.com/pb33f/go-yaml"

	"github.com/agentready/agentready/internal/bounded"
	"github.com/agentready/agentready/internal/finding"
	"github.com/agentready/agentready/internal/jsonorder"
)

// MaxListedProblems caps the problems of one kind in one document: a
// generated document repeats the same mistake thousands of times, and the
// first ones say it all.
const MaxListedProblems = 50

// problemList holds problems of one kind, at most MaxListedProblems.
type problemList = bounded.List[Problem]

func newProblemList() problemList { return problemList{Max: MaxListedProblems} }

// listed returns the problems, closed by one that counts those left out and
// names what they are ("duplicate keys"). The count is a warning: the
// problems listed already carry the severity.
func listed(l *problemList, what string) []Problem {
	if l.Dropped > 0 {
		l.Items = append(l.Items, Problem{
			Message:  fmt.Sprintf("%d more %s were not listed", l.Dropped, what),
			Location: l.Items[len(l.Items)-1].Location, Warning: true,
		})
	}
	return l.Items
}

// duplicateKeys reports keys written twice in one mapping. YAML forbids
// them and JSON leaves their meaning to each parser, so tools disagree on
// which value counts. The walk is linear: the library's own check compares
// every pair of keys, which a document of 50,000 paths turns into minutes.
func duplicateKeys(d *Document, root *yaml.Node) []Problem {
	w := &keyWalker{doc: d, list: newProblemList()}
	w.walk(root, 0)
	return listed(&w.list, "duplicate keys")
}

type keyWalker struct {
	doc  *Document
	list problemList
	// path is the stack of keys and indexes down to the node being walked;
	// it becomes a JSON pointer only for what is reported.
	path []string
}

// smallMapping is the size up to which keys are compared pairwise: cheaper
// than a set for the small mappings that make up most of a document.
const smallMapping = 16

// walk visits every mapping; aliases are not followed, since the mapping
// they name is visited where it is written.
func (w *keyWalker) walk(n *yaml.Node, depth int) {
	if n == nil || depth > maxConvertDepth {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			w.walk(c, depth+1)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			w.path = append(w.path, strconv.Itoa(i))
			w.walk(c, depth+1)
			w.path = w.path[:len(w.path)-1]
		}
	case yaml.MappingNode:
		w.mapping(n)
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.path = append(w.path, n.Content[i].Value)
			w.walk(n.Content[i+1], depth+1)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

func (w *keyWalker) mapping(n *yaml.Node) {
	var seen map[string]bool
	if len(n.Content) > 2*smallMapping {
		seen = make(map[string]bool, len(n.Content)/2)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		dup := false
		if seen != nil {
			dup = seen[k.Value]
			seen[k.Value] = true
		} else {
			for j := 0; j < i && !dup; j += 2 {
				dup = n.Content[j].Kind == yaml.ScalarNode && n.Content[j].Value == k.Value
			}
		}
		if dup {
			w.report(k)
		}
	}
}

func (w *keyWalker) report(k *yaml.Node) {
	w.list.Add(Problem{
		Message:  fmt.Sprintf("duplicate key %q: the mapping already has it, and tools disagree on which value counts", k.Value),
		Location: finding.SourceLocation{File: w.doc.File, Line: max(k.Line, 1), Column: k.Column, Pointer: jsonorder.Pointer(append(w.path, k.Value))},
	})
}
