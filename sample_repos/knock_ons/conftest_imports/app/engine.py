from app.multimodal.utils import load_text


def run():
    return load_text("prompt")
