// Koa with @koa/router as their READMEs write an app: ctx.body set to an
// object is JSON; a missing item gets ctx.throw(404).
const Koa = require("koa");
const Router = require("@koa/router");
const { items, find, port, host } = require("./items.cjs");

const app = new Koa();
const router = new Router();

router.get("/items", (ctx) => {
  ctx.body = items;
});

router.get("/items/:id", (ctx) => {
  const item = find(ctx.params.id);
  if (!item) {
    ctx.throw(404);
  }
  ctx.body = item;
});

app.use(router.routes()).use(router.allowedMethods());
app.listen(port, host);
