// net/http's ServeMux with the method and wildcard patterns of Go 1.22, as
// the "Routing Enhancements for Go 1.22" article writes a handler; a missing
// item gets http.NotFound.
package main

import (
	"encoding/json"
	"log"
	"net/http"

	"github.com/agentready/agentready/internal/interop/matrix/goapps"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(goapps.Items)
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		item, ok := goapps.Find(r.PathValue("id"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(item)
	})
	log.Fatal(http.ListenAndServe(goapps.Addr(), mux))
}
