def register() -> str:
    return "cpu"
