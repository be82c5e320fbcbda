class NPUGraphRunner:
    def __init__(self, runner):
        self.runner = runner
