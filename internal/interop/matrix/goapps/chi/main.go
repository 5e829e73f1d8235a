// chi as its README writes a router: middleware.Logger, r.Get, and
// http.Error with the status text for an article that is not found.
package main

import (
	"encoding/json"
	"log"
	"net/http"

	"github.com/agentready/agentready/internal/interop/matrix/goapps"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

func main() {
	r := chi.NewRouter()
	r.Use(middleware.Logger)
	r.Get("/items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(goapps.Items)
	})
	r.Get("/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		item, ok := goapps.Find(chi.URLParam(r, "id"))
		if !ok {
			http.Error(w, http.StatusText(http.StatusNotFound), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(item)
	})
	log.Fatal(http.ListenAndServe(goapps.Addr(), r))
}
