package trialplan

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/spec"
)

// planCleanup adds to a run whose attempt may create a resource (a POST
// over HTTP to a collection) the cleanup the OpenAPI document declares: a
// DELETE on the collection's item path, sent after the run's last re-read
// to the URL the attempt's answer gives (exchange.CreatedBy), then a read
// of that URL to confirm it is gone. It is planned only when the
// allow-list names that DELETE for any item (a pattern or its
// operationId): the item's id is known only once the attempt is answered.
// Otherwise the run says why what it creates is left.
func planCleanup(in Input, r *exchange.TrialRun, idx *spec.Index) {
	call, ok := callOf(r)
	if !ok || idx == nil || call.Via != exchange.ViaHTTP || call.Method != http.MethodPost {
		return
	}
	op := idx.Match(call.Method, call.URL)
	u, err := url.Parse(call.URL)
	if op == nil || err != nil {
		return
	}
	origin := u.Scheme + "://" + u.Host
	item, del := itemOf(in.Spec, op.PathTemplate)
	if item == "" {
		r.NoCleanup = "the document declares no item path under " + op.PathTemplate
		return
	}
	// The collection's own variables (a parent's id) come from the
	// attempt's URL; the item's id alone is left to the answer.
	at := item
	if _, vars, ok := idx.Bind(u.EscapedPath()); ok {
		for k, v := range vars {
			at = strings.ReplaceAll(at, "{"+k+"}", v)
		}
	}
	name, ok := exchange.TemplateVariable(at)
	if !ok {
		r.NoCleanup = "the document's item path " + item + " takes a value the attempt's URL does not give"
		return
	}
	r.CreatedAt = origin + at
	if del == nil {
		r.NoCleanup = "the document declares no DELETE on " + item
		return
	}
	if !in.Rules.Allows(http.MethodDelete, origin+strings.Replace(at, "{"+name+"}", "*", 1), del) {
		r.NoCleanup = "the allow-list does not name DELETE " + item
		return
	}
	h := http.Header{}
	h.Set("Accept", "application/json, application/problem+json;q=0.9")
	cleanup := exchange.TrialStep{Role: exchange.StepCleanup, Via: exchange.ViaHTTP, PlannedRequest: exchange.PlannedRequest{
		Purpose: Purpose(r.Player, exchange.StepCleanup), Method: http.MethodDelete, URL: exchange.CreatedURL, Header: h, BasedOn: call.URL}}
	r.Steps = append(r.Steps, cleanup, readStep(r.Player, exchange.StepCleanupRead, exchange.CreatedURL, "application/json"))
}

// callOf is the run's first attempt.
func callOf(r *exchange.TrialRun) (exchange.TrialStep, bool) {
	for _, s := range r.Steps {
		if s.Role == exchange.StepCall {
			return s, true
		}
	}
	return exchange.TrialStep{}, false
}

// itemOf is the item path of a collection: the first path template the
// document declares one variable segment below it, the first that takes a
// DELETE when several do, with that DELETE.
func itemOf(doc *spec.Document, collection string) (string, *spec.Operation) {
	item := ""
	for _, o := range doc.Operations {
		rest, ok := strings.CutPrefix(o.PathTemplate, strings.TrimSuffix(collection, "/")+"/")
		if !ok || strings.Contains(rest, "/") || !strings.HasPrefix(rest, "{") || !strings.HasSuffix(rest, "}") {
			continue
		}
		if o.Method == http.MethodDelete {
			return o.PathTemplate, o
		}
		if item == "" {
			item = o.PathTemplate
		}
	}
	return item, nil
}
