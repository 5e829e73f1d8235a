// NestJS as its "First steps" and "Controllers" chapters write an app, with
// @nestjs/swagger serving the description at /api-json as its OpenAPI
// chapter does. Plain JavaScript: the decorators a TypeScript controller
// would carry are applied with Reflect.decorate, which is what tsc emits.
require("reflect-metadata");
const { Module, Controller, Get, Param, NotFoundException } = require("@nestjs/common");
const { NestFactory } = require("@nestjs/core");
const { SwaggerModule, DocumentBuilder } = require("@nestjs/swagger");
const { items, find, port, host } = require("./items.cjs");

class ItemsController {
  findAll() {
    return items;
  }

  findOne(id) {
    const item = find(id);
    if (!item) {
      throw new NotFoundException();
    }
    return item;
  }
}

const method = (name) => Object.getOwnPropertyDescriptor(ItemsController.prototype, name);
Reflect.decorate([Get()], ItemsController.prototype, "findAll", method("findAll"));
Reflect.decorate([Get(":id")], ItemsController.prototype, "findOne", method("findOne"));
Param("id")(ItemsController.prototype, "findOne", 0);
Reflect.defineMetadata("design:paramtypes", [String], ItemsController.prototype, "findOne");
Reflect.decorate([Controller("items")], ItemsController);

class AppModule {}
Reflect.decorate([Module({ controllers: [ItemsController] })], AppModule);

async function bootstrap() {
  const app = await NestFactory.create(AppModule);
  const config = new DocumentBuilder().setTitle("Items").setVersion("1.0").build();
  SwaggerModule.setup("api", app, () => SwaggerModule.createDocument(app, config));
  await app.listen(port, host);
}
bootstrap();
