def encode() -> str:
    return "{}"
