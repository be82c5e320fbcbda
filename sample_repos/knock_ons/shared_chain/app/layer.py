from app import platform


class Layer:
    def __init__(self) -> None:
        if platform.is_xpu():
            self.kind = "xpu"
        elif platform.is_cpu():
            from app.cpu_ops import register

            register()
            self.kind = "cpu"
        elif platform.is_rocm():
            self.kind = "rocm"
        else:
            self.kind = "cuda"
