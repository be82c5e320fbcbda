"""setattr writes a computed name: it reads no method (SGLang's humming.py); getattr of a name
built from a local bound only to literals reads those shapes, not every "*_*"."""


def make_weights(layer, sub, param):
    for name in ("weight", "scale"):
        setattr(layer, f"{sub}_{name}", param)


def load_weights(layer, keys, shard_id):
    for key in keys:
        sublayer = "w2" if shard_id == "w2" else "w13"
        getattr(layer, sublayer + "_" + key)
