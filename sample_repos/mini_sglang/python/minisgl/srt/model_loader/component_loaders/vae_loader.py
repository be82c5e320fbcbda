from minisgl.srt.model_loader.component_loaders.component_loader import ComponentLoader


class VAELoader(ComponentLoader):
    pass
