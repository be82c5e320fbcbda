from app.worker.xpu_model_runner import XPUModelRunner


class XPUWorker:
    def __init__(self):
        self.runner = XPUModelRunner()
