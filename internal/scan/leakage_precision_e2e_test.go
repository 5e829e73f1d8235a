package scan_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/probe"
)

const precisionUser = "Bearer precision-user"

func precisionJSON(w http.ResponseWriter, cc string, doc any) {
	b, _ := json.Marshal(doc)
	w.Header().Set("Content-Type", "application/hal+json")
	if cc != "" {
		w.Header().Set("Cache-Control", cc)
	}
	w.Write(b)
}

func precisionProblem(w http.ResponseWriter, status int, cc string) {
	w.Header().Set("Content-Type", "application/problem+json")
	if cc != "" {
		w.Header().Set("Cache-Control", cc)
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"about:blank","status":%d}`, status)
}

// precisionApp does, for an anonymous caller and a user, what conformant
// APIs commonly do and the leakage family once took for leaks: a sign-in
// link answered with an authentication challenge, a public document with a
// timestamp, a fixed admin path refused, a state reason naming the
// subscription, and order 7 hidden from anonymous callers behind a plain
// 404. The one leak it has is the admin settings link offered to anonymous
// callers, which refuses them with 403 while the user reads it.
func precisionApp() http.Handler {
	mux := http.NewServeMux()
	authed := func(r *http.Request) bool { return r.Header.Get("Authorization") == precisionUser }
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		precisionJSON(w, "private", map[string]any{"_links": map[string]any{
			"self": map[string]any{"href": "/"}, "me": map[string]any{"href": "/me"},
			"item": map[string]any{"href": "/items/1"}, "settings": map[string]any{"href": "/admin/settings"},
			"sub": map[string]any{"href": "/subs/1"}, "order": map[string]any{"href": "/orders/7"},
		}})
	})
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		if !authed(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
			precisionProblem(w, http.StatusUnauthorized, "no-store")
			return
		}
		precisionJSON(w, "private", map[string]any{"name": "u", "_links": map[string]any{"self": map[string]any{"href": "/me"}}})
	})
	mux.HandleFunc("GET /items/1", func(w http.ResponseWriter, r *http.Request) {
		precisionJSON(w, "public, max-age=60", map[string]any{"id": 1, "servedAt": time.Now().UnixNano(), "_links": map[string]any{"self": map[string]any{"href": "/items/1"}}})
	})
	mux.HandleFunc("GET /admin/settings", func(w http.ResponseWriter, r *http.Request) {
		if !authed(r) {
			precisionProblem(w, http.StatusForbidden, "no-store")
			return
		}
		precisionJSON(w, "private", map[string]any{"x": 1, "_links": map[string]any{"self": map[string]any{"href": "/admin/settings"}}})
	})
	mux.HandleFunc("GET /subs/1", func(w http.ResponseWriter, r *http.Request) {
		precisionJSON(w, "private", map[string]any{"id": 1, "state": "cancelled",
			"unavailableAffordances": []any{map[string]any{"operation": "resumeSubscription", "reason": "subscription is cancelled"}},
			"_links":                 map[string]any{"self": map[string]any{"href": "/subs/1"}}})
	})
	mux.HandleFunc("GET /orders/7", func(w http.ResponseWriter, r *http.Request) {
		if !authed(r) {
			precisionProblem(w, http.StatusNotFound, "")
			return
		}
		w.Header().Set("Vary", "Authorization")
		precisionJSON(w, "private", map[string]any{"id": 7, "_links": map[string]any{"self": map[string]any{"href": "/orders/7"}}})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { precisionProblem(w, http.StatusNotFound, "no-store") })
	return mux
}

// TestLeakageConformantPatternsAreNotLeaks scans precisionApp as anonymous
// and user: only the settings link, and the info-level note on an
// unavailable operation never offered, are reported.
func TestLeakageConformantPatternsAreNotLeaks(t *testing.T) {
	t.Parallel()
	rep := scanIdentities(t, precisionApp(), []probe.Identity{
		{Caller: exchange.Caller{Name: "anonymous"}},
		{Caller: exchange.Caller{Name: "user"}, Header: http.Header{"Authorization": {precisionUser}}},
	}, false)
	var got []string
	for _, f := range rep.Findings {
		if f.Family == "leakage" {
			got = append(got, f.CheckID+" "+f.Subject)
		}
	}
	slices.Sort(got)
	want := []string{
		"leakage-offered-refused anonymous settings",
		"leakage-unavailable-never-offered anonymous resumeSubscription",
		"leakage-unavailable-never-offered user resumeSubscription",
	}
	if !slices.Equal(got, want) {
		for _, f := range rep.Findings {
			if f.Family == "leakage" {
				t.Log(f.CheckID, f.Message)
			}
		}
		t.Errorf("leakage findings %q, want %q", got, want)
	}
	if obs := checkStatus(rep, "leakage-offered-refused").Observations; !slices.ContainsFunc(obs, func(o string) bool {
		return o == `as "anonymous", / offers me (GET /me), which answered 401 with WWW-Authenticate: an authentication challenge, not reported`
	}) {
		t.Errorf("offered-refused observations %q: the sign-in challenge is not noted", obs)
	}
	if obs := checkStatus(rep, "leakage-existence-oracle").Observations; len(obs) != 1 {
		t.Errorf("existence-oracle observations %q, want the fixed /admin/settings path noted", obs)
	}
}
