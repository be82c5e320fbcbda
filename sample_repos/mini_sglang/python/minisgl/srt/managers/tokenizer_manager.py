from minisgl.srt.managers.multimodal_processor import import_processors


class TokenizerManager:
    def __init__(self, server_args):
        import_processors("minisgl.srt.multimodal.processors")
