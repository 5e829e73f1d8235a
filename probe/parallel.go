package probe

import (
	"context"
	"sync"
)

// inParallel calls do with each index below n on at most workers
// goroutines, handing the indices out in order, and returns once every call
// it began has returned. When ctx ends, the indices not yet handed out are
// never called: a request the scan's end cut would say nothing of the app.
func inParallel(ctx context.Context, n, workers int, do func(i int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range work {
				do(i)
			}
		})
	}
feed:
	for i := range n {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
}
