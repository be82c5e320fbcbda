from app.layer import Layer

LAYER = Layer()
