package checks

import (
	"runtime"
	"sync"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/halview"
)

// A PageReader is a part that reads every page of a recording and keeps
// only what it derives from each, in its own state in the Input's memos.
// The readers of the selected checks share one decoding of each page
// (Input.ReadPages): on a large crawl, decoding is most of the work after
// the crawl, and each family decoding every page again would multiply it,
// and the garbage it leaves.
type PageReader interface {
	// PageKey names the reader; unique among readers.
	PageKey() string
	// ReadsPage reports whether the reader reads x, judging by its request
	// and response line alone.
	ReadsPage(x *exchange.Exchange) bool
	// ReadPage derives what the reader keeps of x. Pages are given in
	// recording order, one at a time; other readers may read at the same
	// time, so the state a reader keeps is its own.
	ReadPage(in *Input, x *exchange.Exchange, v *halview.View)
}

// pagesBatch bounds the decoded pages held at once by the shared reading.
const pagesBatch = 64

// ReadPages has r read every page of the recording, once per Input. The
// first call reads every page once for all the readers the selected checks
// bring; a reader none of them brings reads the pages alone.
func (in *Input) ReadPages(r PageReader) {
	in.pagesOnce.Do(func() {
		readPages(in, in.pageReaders)
		in.pagesRead = map[string]bool{}
		for _, read := range in.pageReaders {
			in.pagesRead[read.PageKey()] = true
		}
	})
	if in.pagesRead[r.PageKey()] {
		return
	}
	Memo(in, pagesReadAlone.With(r.PageKey()), func() struct{} {
		readPages(in, []PageReader{r})
		return struct{}{}
	})
}

// pagesReadAlone marks, per reader, the pages read for a reader that none
// of the selected checks brings.
var pagesReadAlone = NewKey[struct{}]()

// readPages decodes the pages any of readers reads, several at once, and
// gives each decoded page to the readers in recording order.
func readPages(in *Input, readers []PageReader) {
	xs := in.Recording.Exchanges
	views := make([]*halview.View, pagesBatch)
	for from := 0; from < len(xs); from += pagesBatch {
		if in.evaluating != nil && in.evaluating.Err() != nil {
			// What is derived from here is partial; Evaluate no longer
			// takes the result of a check that returns after this.
			return
		}
		batch := xs[from:min(from+pagesBatch, len(xs))]
		decodeBatch(batch, views, readers)
		// Each reader reads the batch in recording order, beside the others.
		var wg sync.WaitGroup
		for _, r := range readers {
			wg.Go(func() {
				for i, x := range batch {
					if views[i] != nil && r.ReadsPage(x) {
						r.ReadPage(in, x, views[i])
					}
				}
			})
		}
		wg.Wait()
		clear(views)
	}
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
