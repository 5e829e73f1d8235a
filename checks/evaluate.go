package checks

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/agentready/agentready/internal/finding"
)

// checkTimeout bounds one check; checks are pure, so hitting it means a bug.
const checkTimeout = 30 * time.Second

// Evaluate runs every check concurrently over the recording. A panic in one
// check becomes status "error" for that check and never takes the scan down.
//
// Once ctx is done, Evaluate returns without waiting for the checks still
// running (a check that ignores ctx would otherwise hold the report back):
// those and the ones not yet started are "error", since they were not
// judged, with context.Cause(ctx) as the reason ("… before this check
// ran"). So is a check that returned after ctx was done, whose result may
// rest on an analysis cut short.
func Evaluate(ctx context.Context, in *Input, cs []Check) ([]finding.CheckResult, []finding.Finding) {
	results := make([]finding.CheckResult, len(cs))
	found := make([][]finding.Finding, len(cs))
	judged := make([]bool, len(cs))
	in.pageReaders, in.evaluating = pageReadersOf(cs), ctx
	type evaluated struct {
		i   int
		res finding.CheckResult
		fs  []finding.Finding
		// inTime is whether ctx was still live when the check returned.
		inTime bool
	}
	// Buffered for every check: one Evaluate no longer waits for never
	// blocks on sending its result.
	done := make(chan evaluated, len(cs))
	started := make([]bool, len(cs))
	running := 0
	sem := make(chan struct{}, 8)
	collect := func(e evaluated) {
		running--
		if e.inTime {
			results[e.i], found[e.i], judged[e.i] = e.res, e.fs, true
		}
	}
launch:
	for i, c := range cs {
		for {
			if ctx.Err() != nil {
				break launch
			}
			select {
			case sem <- struct{}{}:
			case e := <-done:
				collect(e)
				continue
			case <-ctx.Done():
				break launch
			}
			break
		}
		started[i] = true
		running++
		go func() {
			defer func() { <-sem }()
			res, fs := runOne(ctx, in, c)
			done <- evaluated{i: i, res: res, fs: fs, inTime: ctx.Err() == nil}
		}()
	}
wait:
	for running > 0 {
		select {
		case e := <-done:
			collect(e)
		case <-ctx.Done():
			break wait
		}
	}
	// What came in before ctx was done counts, even when the select above
	// saw ctx first.
	for drained := false; !drained; {
		select {
		case e := <-done:
			collect(e)
		default:
			drained = true
		}
	}
	for i, c := range cs {
		if !judged[i] {
			results[i], found[i] = notJudged(ctx, c, started[i]), nil
		}
	}
	var all []finding.Finding
	for _, fs := range found {
		all = append(all, fs...)
	}
	return results, all
}

// notJudged is the result of a check that ctx's end left unjudged.
func notJudged(ctx context.Context, c Check, started bool) finding.CheckResult {
	m := c.Meta()
	when := "before this check ran"
	if started {
		when = "before this check finished"
	}
	return finding.CheckResult{ID: m.ID, Family: string(m.Family), Severity: m.Severity,
		Status: finding.StatusError, Reason: fmt.Sprintf("%v %s", context.Cause(ctx), when)}
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
