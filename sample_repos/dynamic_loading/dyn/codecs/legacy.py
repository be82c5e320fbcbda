def encode() -> str:
    return "legacy: its name does not start with c_, so no computed name can load it"
