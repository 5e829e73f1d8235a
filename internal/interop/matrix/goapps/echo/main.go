// Echo as its README writes a server (Logger and Recover middleware), with
// echo.NewHTTPError for a missing item, which Echo's default error handler
// renders.
package main

import (
	"net/http"

	"github.com/agentready/agentready/internal/interop/matrix/goapps"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

func main() {
	e := echo.New()
	e.HideBanner = true
	e.Use(middleware.Logger())
	e.Use(middleware.Recover())
	e.GET("/items", func(c echo.Context) error {
		return c.JSON(http.StatusOK, goapps.Items)
	})
	e.GET("/items/:id", func(c echo.Context) error {
		item, ok := goapps.Find(c.Param("id"))
		if !ok {
			return echo.NewHTTPError(http.StatusNotFound, "item not found")
		}
		return c.JSON(http.StatusOK, item)
	})
	e.Logger.Fatal(e.Start(goapps.Addr()))
}
