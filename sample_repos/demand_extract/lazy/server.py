from lazy.loader import load_model
from lazy.base import Handler


def serve(name):
    handlers = [h() for h in Handler.__subclasses__()]
    return load_model(name), handlers
