from lazy.platform import is_accel


class Model:
    def __init__(self):
        self.fast = is_accel()

    def forward(self, x):
        if self.fast:
            from lazy.accel import fast_forward

            return fast_forward(x)
        return x
