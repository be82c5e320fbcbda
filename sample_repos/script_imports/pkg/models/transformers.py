"""A model backed by the transformers library: nothing imports it."""


class TransformersModel:
    pass
