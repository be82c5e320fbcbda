import re

from app.layers.head import LMHead
from app.layers.weights import WeightsMapper, maybe_prefix


def _make_mapper():
    return WeightsMapper(maybe_prefix("model"))


class BigModel:
    def __init__(self):
        self.head = LMHead()
        self.mapper = _make_mapper()

    def clean_name(self, name):
        return re.sub("^model[.]", "", name)
