package checks

import (
	"runtime"
	"sync"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
)

// A PageReader is a part that reads every page of a recording and keeps
// only what it derives from each. The readers of the selected checks share
// one decoding of each page (Input.PagesRead): on a large crawl, decoding
// is most of the work after the crawl, and each family decoding every page
// again would multiply it, and the garbage it leaves.
type PageReader interface {
	// PageKey names what the reader keeps; unique among readers.
	PageKey() string
	// ReadsPage reports whether the reader reads x, judging by its request
	// and response line alone.
	ReadsPage(x *exchange.Exchange) bool
	// ReadPage derives what the reader keeps of x, or nil. Pages are given
	// in recording order, one at a time, so a reader may hold state across
	// them in the Input's memos; other readers may run at the same time, so
	// that state is the reader's own.
	ReadPage(in *Input, x *exchange.Exchange, v *halview.View) any
}

// pageReads is what the readers kept, per reader key, aligned with the
// recording's exchanges.
type pageReads map[string][]any

// pagesBatch bounds the decoded pages held at once by the shared pass.
const pagesBatch = 256

// PagesRead returns what r kept of each exchange of the recording, at its
// index in Recording.Exchanges (nil where it read nothing or kept nothing).
// The first call reads every page once for all the readers the selected
// checks bring; a reader none of them brings reads the pages alone.
func (in *Input) PagesRead(r PageReader) []any {
	in.pagesOnce.Do(func() { in.pages = readPages(in, in.pageReaders) })
	if got, ok := in.pages[r.PageKey()]; ok {
		return got
	}
	return in.Memo("checks/pages/"+r.PageKey(), func() any {
		return readPages(in, []PageReader{r})[r.PageKey()]
	}).([]any)
}

// readPages decodes the pages any of readers reads, several at once, and
// gives each decoded page to the readers in recording order.
func readPages(in *Input, readers []PageReader) pageReads {
	xs := in.Recording.Exchanges
	out := pageReads{}
	for _, r := range readers {
		out[r.PageKey()] = make([]any, len(xs))
	}
	if len(readers) == 0 {
		return out
	}
	views := make([]*halview.View, pagesBatch)
	for from := 0; from < len(xs); from += pagesBatch {
		batch := xs[from:min(from+pagesBatch, len(xs))]
		decodeBatch(batch, views, readers)
		// Each reader reads the batch in recording order, beside the others:
		// a reader's state is its own.
		var wg sync.WaitGroup
		for _, r := range readers {
			kept := out[r.PageKey()][from:]
			wg.Go(func() {
				for i, x := range batch {
					if views[i] != nil && r.ReadsPage(x) {
						kept[i] = r.ReadPage(in, x, views[i])
					}
				}
			})
		}
		wg.Wait()
		clear(views)
	}
	return out
}

// decodeBatch decodes, into views, the pages of batch that a reader reads.
func decodeBatch(batch []*exchange.Exchange, views []*halview.View, readers []PageReader) {
	workers := min(runtime.GOMAXPROCS(0), len(batch))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(batch); i += workers {
				if readsAny(readers, batch[i]) {
					views[i] = batch[i].Response.ReadHAL()
				}
			}
		})
	}
	wg.Wait()
}

func readsAny(readers []PageReader, x *exchange.Exchange) bool {
	for _, r := range readers {
		if r.ReadsPage(x) {
			return true
		}
	}
	return false
}

// pageReadersOf lists the page readers among the checks' parts.
func pageReadersOf(cs []Check) []PageReader {
	var out []PageReader
	for _, p := range PartsOf(cs) {
		if r, ok := p.(PageReader); ok {
			out = append(out, r)
		}
	}
	return out
}
