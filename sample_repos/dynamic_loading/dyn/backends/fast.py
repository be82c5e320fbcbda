class Runner:
    def go(self) -> str:
        return "fast"


def run() -> str:
    return Runner().go()


def _unused_fast() -> str:
    return "never read"
