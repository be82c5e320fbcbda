"""The same extension, optional: the handler carries on."""

try:
    from kern import flash_ops
except ImportError:
    flash_ops = None


def available():
    return flash_ops is not None
