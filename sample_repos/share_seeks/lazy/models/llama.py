from lazy.platform import is_accel, is_turbo


class Model:
    def __init__(self):
        self.turbo = is_turbo()

    def forward(self, x):
        if is_accel() and self.turbo:
            from lazy.accel import fast_forward

            return fast_forward(x)
        return x
