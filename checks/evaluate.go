package checks

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/agentready/agentready/internal/finding"
)

// checkTimeout bounds one check; checks are pure, so hitting it means a bug.
const checkTimeout = 30 * time.Second

// Evaluate runs every check concurrently over the recording. A panic in one
// check becomes status "error" for that check and never takes the scan down.
func Evaluate(ctx context.Context, in *Input, cs []Check) ([]finding.CheckResult, []finding.Finding) {
	results := make([]finding.CheckResult, len(cs))
	found := make([][]finding.Finding, len(cs))
	in.pageReaders = pageReadersOf(cs)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, c := range cs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i], found[i] = runOne(ctx, in, c)
		}()
	}
	wg.Wait()
	var all []finding.Finding
	for _, fs := range found {
		all = append(all, fs...)
	}
	return results, all
}

func runOne(ctx context.Context, in *Input, c Check) (res finding.CheckResult, fs []finding.Finding) {
	m := c.Meta()
	res = finding.CheckResult{ID: m.ID, Family: string(m.Family), Severity: m.Severity}
	defer func() {
		if r := recover(); r != nil {
			res.Status, res.Reason, fs = finding.StatusError, fmt.Sprintf("check panicked: %v\n%s", r, debug.Stack()), nil
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	fs, err := c.Run(ctx, in)
	res.Observations = in.Observations(m.ID)
	switch reason, skipped := IsSkip(err); {
	case skipped:
		res.Status, res.Reason, fs = finding.StatusSkip, reason, nil
	case err != nil:
		res.Status, res.Reason, fs = finding.StatusError, err.Error(), nil
	case len(fs) == 0:
		res.Status = finding.StatusPass
	default:
		res.Status, res.Findings = finding.StatusFail, len(fs)
		res.Severity = finding.SeverityNone
		for _, f := range fs {
			res.Severity = max(res.Severity, f.Severity)
		}
	}
	return res, fs
}
