package hypermedia

import (
	"fmt"
	"slices"

	"github.com/agentready/agentready/checks"
	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
)

// PageKey, ReadsPage and ReadPage make States the reader of every page for
// the hal, hal-forms and affordance families (checks.PageReader): the state
// matrix, the interfaces section and the HAL-FORMS templates carried in
// other JSON types come from one decoding of each page, shared with the
// other families' readers, and keep what they derive, never the tree.
func (States) PageKey() string { return "hypermedia/pages" }

// ReadsPage: the crawl's and the HAL-FORMS fetches' JSON bodies kept whole.
func (States) ReadsPage(x *exchange.Exchange) bool {
	return Judgeable(x) && (x.Purpose == exchange.PurposeCrawl || x.Purpose == PurposeFetch) &&
		exchange.IsJSONMediaType(x.Response.MediaType())
}

// ReadPage adds the page to the state matrix, the interfaces' visits and
// the carried HAL-FORMS documents.
func (States) ReadPage(in *checks.Input, x *exchange.Exchange, v *halview.View) {
	root := v.Root
	if root == nil {
		return
	}
	p := reading(in)
	if observable(x) {
		p.states.add(x, root)
		p.addVisit(in, x, root)
	}
	if carries(x, root) {
		p.carried[x] = true
	}
}

// pageFacts is what the families keep of the pages States read.
type pageFacts struct {
	states stateKinds
	visits visitTable
	// seen are the crawled URLs visited again (see firstVisit), and fetched
	// the templates of the first HAL-FORMS fetch of each URL, which replace
	// those of the crawled body (see factsOf); both only while the pages are
	// read.
	seen    map[string]bool
	fetched map[string]visitForms
	// carried are the JSON pages, not served as HAL-FORMS, whose body has
	// _templates.
	carried map[*exchange.Exchange]bool
}

type visitForms struct {
	templates [][2]string
	text      string
}

// visitTable holds the crawled resources, once per URL. Resources of one
// kind mostly offer alike, so what each offered is held once per distinct
// offer: a crawl of many pages keeps a URL and an index per page.
type visitTable struct {
	pages    []visitPage
	distinct []visit // without url
	index    map[visitKey]int32
}

type visitPage struct {
	url     string
	visited int32 // in distinct
}

// visitKey tells distinct visits apart: the references follow from their
// JSON text, and the templates from theirs but for their order.
type visitKey struct {
	kind, state, refText, templateText, templateOrder string
	forms                                             bool
}

func (t *visitTable) add(url string, v visit) {
	key := visitKey{kind: v.kind, state: v.state, refText: v.refText, templateText: v.templateText, forms: v.forms}
	if len(v.templates) > 0 {
		key.templateOrder = fmt.Sprint(v.templates)
	}
	i, ok := t.index[key]
	if !ok {
		if t.index == nil {
			t.index = map[visitKey]int32{}
		}
		i = int32(len(t.distinct))
		t.index[key] = i
		t.distinct = append(t.distinct, v)
	}
	t.pages = append(t.pages, visitPage{url: url, visited: i})
}

// all lists the visits in crawl order, each with its URL.
func (t *visitTable) all() []visit {
	out := make([]visit, len(t.pages))
	for i, p := range t.pages {
		out[i] = t.distinct[p.visited]
		out[i].url = p.url
	}
	return out
}

var readingKey = checks.NewKey[*pageFacts]()

// reading is the facts while States reads the pages into them.
func reading(in *checks.Input) *pageFacts {
	return checks.Memo(in, readingKey, func() *pageFacts {
		return &pageFacts{states: stateKinds{kinds: map[string]*stateKind{}}, seen: map[string]bool{},
			fetched: map[string]visitForms{}, carried: map[*exchange.Exchange]bool{}}
	})
}

var factsKey = checks.NewKey[*pageFacts]()

// factsOf reads every page, once per Input, and returns what was kept.
func factsOf(in *checks.Input) *pageFacts {
	return checks.Memo(in, factsKey, func() *pageFacts {
		in.ReadPages(States{})
		p := reading(in)
		if len(p.fetched) > 0 {
			var withForms visitTable
			for _, v := range p.visits.all() {
				if f, ok := p.fetched[v.url]; ok {
					v.forms, v.templates, v.templateText = true, f.templates, f.text
				}
				withForms.add(v.url, v)
			}
			p.visits = withForms
		}
		p.seen, p.fetched, p.visits.index = nil, nil, nil
		return p
	})
}

// addVisit records a crawled resource, or the templates of a HAL-FORMS
// fetch.
func (p *pageFacts) addVisit(in *checks.Input, x *exchange.Exchange, root *halview.Resource) {
	url := x.Request.URL
	if x.Purpose == PurposeFetch {
		if _, ok := p.fetched[url]; !ok {
			f := visitForms{}
			f.templates, f.text = templates(root)
			p.fetched[url] = f
		}
		return
	}
	if !p.firstVisit(in, x) {
		return
	}
	_, state := StateOf(root.Value)
	v := visit{kind: ShapeOf(x), state: state, forms: len(root.Templates) > 0}
	v.refs, v.refText = references(root.Value)
	v.templates, v.templateText = templates(root)
	p.visits.add(url, v)
}

// firstVisit reports the first crawl of x's URL that decoded, as the
// index finds: crawled URLs are unique, so a crawl of many pages keeps no set
// of the URLs visited, only of those whose first crawl did not decode.
func (p *pageFacts) firstVisit(in *checks.Input, x *exchange.Exchange) bool {
	url := x.Request.URL
	if in.Index.Get(exchange.PurposeCrawl, url) == x {
		return true
	}
	if p.seen[url] {
		return false
	}
	p.seen[url] = true
	return !p.decodedFirst(in, url)
}

// decodedFirst reports that the indexed crawl of url was visited.
func (p *pageFacts) decodedFirst(in *checks.Input, url string) bool {
	first := in.Index.Get(exchange.PurposeCrawl, url)
	return first != nil && observable(first) && first.Response.ReadHAL().Root != nil
}

// carries: a crawled or fetched JSON body, not served as HAL-FORMS, with
// _templates.
func carries(x *exchange.Exchange, root *halview.Resource) bool {
	return x.Response.MediaType() != MediaHALForms && root.TemplatesValue != nil
}

// stateKinds accumulates the state matrix, per path shape.
type stateKinds struct {
	kinds map[string]*stateKind
	order []string
}

func (s *stateKinds) add(x *exchange.Exchange, root *halview.Resource) {
	member, state := StateOf(root.Value)
	if state == "" {
		return
	}
	shape := ShapeOf(x)
	k := s.kinds[shape]
	if k == nil {
		k = &stateKind{member: member, resources: map[string]bool{}, offered: map[[2]string]map[string]bool{}}
		s.kinds[shape] = k
		s.order = append(s.order, shape)
	}
	if member != k.member {
		return // one kind, one state member
	}
	k.resources[x.Request.URL] = true
	if !slices.Contains(k.states, state) {
		k.states = append(k.states, state)
	}
	for _, c := range controls(root, x) {
		if k.offered[c] == nil {
			k.offered[c] = map[string]bool{}
		}
		k.offered[c][state] = true
	}
}

// Carried are the crawled or fetched JSON pages, not served as HAL-FORMS,
// whose body has _templates: producers put them there, and clients that
// read them meet the same defects.
func Carried(in *checks.Input) map[*exchange.Exchange]bool { return factsOf(in).carried }
