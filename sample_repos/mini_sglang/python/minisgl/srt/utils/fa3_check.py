"""Imitates a live script that asks for FA3 directly, with no registry key and no guard a
profile could fold (SGLang's speculative workers construct the FA3 backend outright): FA3's
wrapper module stays blocked, with this chain."""

from mini_kernel.flash_attn import is_fa3_supported

if __name__ == "__main__":
    print({"fa3_available": is_fa3_supported()})
