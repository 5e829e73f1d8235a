// The TypeScript SDK's stateless Streamable HTTP server, as its
// simpleStatelessStreamableHttp example writes it: createMcpExpressApp, a
// new server and transport per POST /mcp, and 405 to GET and DELETE.
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StreamableHTTPServerTransport } = require("@modelcontextprotocol/sdk/server/streamableHttp.js");
const { createMcpExpressApp } = require("@modelcontextprotocol/sdk/server/express.js");
const { z } = require("zod");
const { port, host } = require("./items.cjs");

function getServer() {
  const server = new McpServer({ name: "stateless-streamable-http-server", version: "1.0.0" });
  server.registerTool(
    "greet",
    {
      title: "Greeting Tool",
      description: "A simple greeting tool",
      inputSchema: { name: z.string().describe("Name to greet") },
    },
    async ({ name }) => ({ content: [{ type: "text", text: `Hello, ${name}!` }] }),
  );
  server.registerTool(
    "add",
    {
      title: "Addition Tool",
      description: "Add two numbers",
      inputSchema: { a: z.number().describe("First number"), b: z.number().describe("Second number") },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  return server;
}

const app = createMcpExpressApp({ host });

app.post("/mcp", async (req, res) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on("close", () => {
      transport.close();
      server.close();
    });
  } catch (error) {
    console.error("Error handling MCP request:", error);
    if (!res.headersSent) {
      res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });
    }
  }
});

const notAllowed = (req, res) => {
  res.writeHead(405).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null }));
};
app.get("/mcp", notAllowed);
app.delete("/mcp", notAllowed);

app.listen(port, host);
