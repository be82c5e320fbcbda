def handle() -> str:
    return "alpha"


def _unused_alpha() -> str:
    return "never read"
