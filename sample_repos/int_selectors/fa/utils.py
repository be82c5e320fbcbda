"""Version probe and version-specific helpers (imitates vLLM's fa_utils)."""

import os


def get_flash_attn_version():
    # the version comes from the environment: no integer literal reaches the name
    return int(os.environ.get("FA_VERSION", "2"))


def fa3_scheduler_metadata(batch):
    return [batch, "ahead-of-time"]


def fa4_tile_size():
    return 128
