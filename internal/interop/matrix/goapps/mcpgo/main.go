// mark3labs/mcp-go as its README writes a server: a hello_world tool,
// served over streamable HTTP.
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/agentready/agentready/internal/interop/matrix/goapps"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("Demo", "1.0.0", server.WithToolCapabilities(false))
	tool := mcp.NewTool("hello_world",
		mcp.WithDescription("Say hello to someone"),
		mcp.WithString("name", mcp.Required(), mcp.Description("Name of the person to greet")),
	)
	s.AddTool(tool, helloHandler)
	if err := server.NewStreamableHTTPServer(s).Start(goapps.Addr()); err != nil {
		log.Fatal(err)
	}
}

func helloHandler(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := request.RequireString("name")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("Hello, %s!", name)), nil
}
