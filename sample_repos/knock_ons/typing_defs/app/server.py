from app.models.interfaces import SupportsEncoderGraphs, budget


def serve(model: SupportsEncoderGraphs):
    return budget(), model
