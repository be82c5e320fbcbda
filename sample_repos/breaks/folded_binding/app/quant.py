from app.platform import is_hip

_is_hip = is_hip()

if _is_hip:

    def scaled_quant(x):
        return x * 2

else:

    def scaled_quant(x):
        return x * 3
