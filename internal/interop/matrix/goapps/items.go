// Package goapps holds what the matrix's Go servers share: the items they
// serve and the address they listen on. Each server is its own command.
package goapps

import (
	"log"
	"net"
	"os"
)

// Item is the resource every matrix server serves at /items/{id}.
type Item struct {
	ID    string  `json:"id"`
	Name  string  `json:"name"`
	Price float64 `json:"price"`
}

// Items are the collection at /items, in a fixed order.
var Items = []Item{
	{ID: "1", Name: "Blue Train", Price: 56.99},
	{ID: "2", Name: "Jeru", Price: 17.99},
	{ID: "3", Name: "Sarah Vaughan and Clifford Brown", Price: 39.99},
}

// Find returns the item with that id.
func Find(id string) (Item, bool) {
	for _, it := range Items {
		if it.ID == id {
			return it, true
		}
	}
	return Item{}, false
}

// Addr is 127.0.0.1 and the port matrix.sh gives in PORT: never every
// interface.
func Addr() string {
	port := os.Getenv("PORT")
	if port == "" {
		log.Fatal("PORT is not set")
	}
	return net.JoinHostPort("127.0.0.1", port)
}
