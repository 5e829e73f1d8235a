"""What the matrix's Python servers share: the items and the port."""

import os

ITEMS = [
    {"id": "1", "name": "Blue Train", "price": 56.99},
    {"id": "2", "name": "Jeru", "price": 17.99},
    {"id": "3", "name": "Sarah Vaughan and Clifford Brown", "price": 39.99},
]

HOST = "127.0.0.1"
PORT = int(os.environ["PORT"])


def find(item_id):
    return next((item for item in ITEMS if item["id"] == item_id), None)
