// hapi as its "Getting started" writes a server: server.route, and a
// returned object is JSON; a missing item throws Boom.notFound, as hapi's
// error-handling tutorial does.
const Hapi = require("@hapi/hapi");
const Boom = require("@hapi/boom");
const { items, find, port, host } = require("./items.cjs");

const init = async () => {
  const server = Hapi.server({ port, host });
  server.route({ method: "GET", path: "/items", handler: () => items });
  server.route({
    method: "GET",
    path: "/items/{id}",
    handler: (request) => {
      const item = find(request.params.id);
      if (!item) {
        throw Boom.notFound();
      }
      return item;
    },
  });
  await server.start();
};

process.on("unhandledRejection", (err) => {
  console.log(err);
  process.exit(1);
});

init();
