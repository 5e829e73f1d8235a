"""Falcon as its tutorial writes resources: resp.media, falcon.HTTPNotFound
for a missing item, served by the standard library's WSGI server as its
quickstart does."""

from wsgiref.simple_server import make_server

import falcon

from items import HOST, ITEMS, PORT, find


class ItemsResource:
    def on_get(self, req, resp):
        resp.media = ITEMS


class ItemResource:
    def on_get(self, req, resp, item_id):
        item = find(item_id)
        if item is None:
            raise falcon.HTTPNotFound()
        resp.media = item


app = falcon.App()
app.add_route("/items", ItemsResource())
app.add_route("/items/{item_id}", ItemResource())

if __name__ == "__main__":
    with make_server(HOST, PORT, app) as httpd:
        httpd.serve_forever()
