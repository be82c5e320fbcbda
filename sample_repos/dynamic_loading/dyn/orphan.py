def forgotten() -> int:
    return 1
