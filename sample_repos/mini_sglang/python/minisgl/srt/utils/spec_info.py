class SpecInfo:
    draft_tokens: int = 4
