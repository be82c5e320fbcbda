from dataclasses import dataclass

from minisgl.srt.managers.tokenizer_manager import TokenizerManager
from minisgl.srt.model_executor.model_runner import ModelRunner


class Engine:
    def __init__(self, server_args):
        self.tokenizer_manager = TokenizerManager(server_args)
        self.runner = ModelRunner(server_args)

    def run(self):
        return self.runner.forward()


@dataclass
class _OldSchedulerConfig:
    max_batch: int = 8
    policy: str = "fcfs"
