from lazy.platform import is_accel


class Model:
    def forward(self, x):
        return x if is_accel() else -x
