// gin as the Go tutorial "Developing a RESTful API with Go and Gin" writes
// it: IndentedJSON, and {"message": "... not found"} with a 404.
package main

import (
	"net/http"

	"github.com/agentready/agentready/internal/interop/matrix/goapps"
	"github.com/gin-gonic/gin"
)

func main() {
	router := gin.Default()
	router.GET("/items", func(c *gin.Context) {
		c.IndentedJSON(http.StatusOK, goapps.Items)
	})
	router.GET("/items/:id", func(c *gin.Context) {
		item, ok := goapps.Find(c.Param("id"))
		if !ok {
			c.IndentedJSON(http.StatusNotFound, gin.H{"message": "item not found"})
			return
		}
		c.IndentedJSON(http.StatusOK, item)
	})
	router.Run(goapps.Addr())
}
