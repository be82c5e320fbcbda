from collections import defaultdict

from pkg.npu_runner import NPUGraphRunner


class CudaGraphRunner:
    def __init__(self, runner):
        self.runner = runner


class CPUGraphRunner:
    def __init__(self, runner):
        self.runner = runner


class ModelRunner:
    def __init__(self, device):
        self.device = device

    def init_device_graphs(self):
        graph_runners = defaultdict(
            lambda: CudaGraphRunner,
            {
                "cpu": CPUGraphRunner,
                "npu": NPUGraphRunner,
            },
        )
        return graph_runners[self.device](self)
