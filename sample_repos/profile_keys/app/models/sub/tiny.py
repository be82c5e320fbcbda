def tiny():
    return "tiny"
