from kern import common_ops

print(common_ops)
