"""Flask as its quickstart writes a JSON API: a returned list or dict is
JSON, and abort(404) gives Flask's own error page."""

from flask import Flask, abort

from items import HOST, ITEMS, PORT, find

app = Flask(__name__)


@app.get("/items")
def list_items():
    return ITEMS


@app.get("/items/<item_id>")
def get_item(item_id):
    item = find(item_id)
    if item is None:
        abort(404)
    return item


if __name__ == "__main__":
    app.run(host=HOST, port=PORT)
