import json


class Product:
    def __init__(self, name):
        self.name = json.dumps(name)
