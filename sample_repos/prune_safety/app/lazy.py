def _resolve_device():
    return "cuda"


def __getattr__(name):
    if name == "current_device":
        return _resolve_device()
    raise AttributeError(name)
