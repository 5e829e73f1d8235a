// Express serving application/hal+json built by the "hal" library (js-hal),
// as its README builds a resource: new hal.Resource(fields, self), then
// .link and .embed. A missing item gets Express's own 404.
const express = require("express");
const hal = require("hal");
const { items, find, port, host } = require("./items.cjs");

const app = express();

const itemResource = (item) => new hal.Resource(item, `/items/${item.id}`).link("collection", "/items");

const send = (res, resource) => {
  res.type("application/hal+json").send(JSON.stringify(resource.toJSON()));
};

app.get("/", (req, res) => {
  send(res, new hal.Resource({}, "/").link("items", "/items"));
});

app.get("/items", (req, res) => {
  send(res, new hal.Resource({ count: items.length }, "/items").embed("items", items.map(itemResource)));
});

app.get("/items/:id", (req, res) => {
  const item = find(req.params.id);
  if (!item) {
    res.sendStatus(404);
    return;
  }
  send(res, itemResource(item));
});

app.listen(port, host);
