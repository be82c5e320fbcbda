"""Build script: one CMakeExtension per native module the wheel ships."""

from setuptools import Extension, setup


class CMakeExtension(Extension):
    def __init__(self, name: str, optional: bool = False) -> None:
        super().__init__(name, sources=[], optional=optional)


def _is_cuda() -> bool:
    return True


ext_modules = []
if _is_cuda():
    ext_modules.append(CMakeExtension(name="vllm._C"))
    ext_modules.append(CMakeExtension(name="vllm._flashmla_C", optional=True))

setup(name="mini-vllm", ext_modules=ext_modules)
