// Express as its "Hello world" and routing guides write an app: res.json,
// and res.status(404) with Express's own reply for a missing item.
const express = require("express");
const { items, find, port, host } = require("./items.cjs");

const app = express();

app.get("/items", (req, res) => {
  res.json(items);
});

app.get("/items/:id", (req, res) => {
  const item = find(req.params.id);
  if (!item) {
    res.sendStatus(404);
    return;
  }
  res.json(item);
});

app.listen(port, host);
