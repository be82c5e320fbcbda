try:
    from app import fast_ext
except ImportError as exc:
    raise ImportError("app.fast_ext is not built: build it with -DWITH_FAST=ON") from exc

flash_fwd = fast_ext.flash_fwd
