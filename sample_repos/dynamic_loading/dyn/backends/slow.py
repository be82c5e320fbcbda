def run() -> str:
    return "slow"


def _unused_slow() -> str:
    return "never read"
