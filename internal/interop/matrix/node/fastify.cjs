// Fastify as its "Getting started" writes routes with a response schema,
// and @fastify/swagger serving the description it builds from them, as that
// plugin's README does. A missing item gets Fastify's own 404 reply.
const fastify = require("fastify")();
const { items, find, port, host } = require("./items.cjs");

const item = {
  type: "object",
  properties: { id: { type: "string" }, name: { type: "string" }, price: { type: "number" } },
};

async function routes(app) {
  app.get("/items", { schema: { response: { 200: { type: "array", items: item } } } }, async () => items);
  app.get(
    "/items/:id",
    { schema: { params: { type: "object", properties: { id: { type: "string" } } }, response: { 200: item } } },
    async (request, reply) => {
      const found = find(request.params.id);
      if (!found) {
        return reply.callNotFound();
      }
      return found;
    },
  );
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}

fastify.register(require("@fastify/swagger"), {
  openapi: { info: { title: "Items", version: "1.0.0" } },
});
fastify.register(routes);

fastify.listen({ port, host }, (err) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
});
