"""Build script: one Extension per native module the wheel ships."""


class Extension:
    def __init__(self, name: str, optional: bool = False) -> None:
        self.name = name
        self.optional = optional


ext_modules = [Extension(name="app.core_ext")]
ext_modules.append(Extension(name="app.npu_ext", optional=True))
