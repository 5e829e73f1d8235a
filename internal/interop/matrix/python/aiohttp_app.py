"""aiohttp as its server quickstart writes an app: web.json_response, and
web.HTTPNotFound raised for a missing item."""

from aiohttp import web

from items import HOST, ITEMS, PORT, find

routes = web.RouteTableDef()


@routes.get("/items")
async def list_items(request):
    return web.json_response(ITEMS)


@routes.get("/items/{id}")
async def get_item(request):
    item = find(request.match_info["id"])
    if item is None:
        raise web.HTTPNotFound()
    return web.json_response(item)


app = web.Application()
app.add_routes(routes)
web.run_app(app, host=HOST, port=PORT, print=None)
