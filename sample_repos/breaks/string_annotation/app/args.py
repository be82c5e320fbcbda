class EngineArgs:
    model: str = ""
