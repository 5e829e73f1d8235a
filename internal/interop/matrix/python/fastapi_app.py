"""FastAPI as its tutorial writes a CRUD API: a Pydantic model whose
members are all optional, so that PUT replaces an item ("Body - Updates"),
an in-memory dict, HTTPException(404) for a missing item ("Handling
Errors"), 201 for a created one ("Response Status Code"), {"ok": True} for
a deleted one ("SQL (Relational) Databases"), served by uvicorn as its
"First Steps" do. FastAPI serves its own /openapi.json."""

import itertools

import uvicorn
from fastapi import FastAPI, HTTPException
from fastapi.encoders import jsonable_encoder
from pydantic import BaseModel

from items import HOST, ITEMS, PORT


class Item(BaseModel):
    id: str | None = None
    name: str | None = None
    price: float | None = None


app = FastAPI()

items = {item["id"]: dict(item) for item in ITEMS}
next_id = itertools.count(len(ITEMS) + 1)


@app.get("/items", response_model=list[Item])
async def read_items():
    return list(items.values())


@app.get("/items/{item_id}", response_model=Item)
async def read_item(item_id: str):
    if item_id not in items:
        raise HTTPException(status_code=404, detail="Item not found")
    return items[item_id]


@app.post("/items", response_model=Item, status_code=201)
async def create_item(item: Item):
    item.id = str(next(next_id))
    items[item.id] = jsonable_encoder(item)
    return items[item.id]


@app.put("/items/{item_id}", response_model=Item)
async def update_item(item_id: str, item: Item):
    if item_id not in items:
        raise HTTPException(status_code=404, detail="Item not found")
    item.id = item_id
    update_item_encoded = jsonable_encoder(item)
    items[item_id] = update_item_encoded
    return update_item_encoded


@app.delete("/items/{item_id}")
async def delete_item(item_id: str):
    if item_id not in items:
        raise HTTPException(status_code=404, detail="Item not found")
    del items[item_id]
    return {"ok": True}


if __name__ == "__main__":
    uvicorn.run(app, host=HOST, port=PORT, log_level="warning")
