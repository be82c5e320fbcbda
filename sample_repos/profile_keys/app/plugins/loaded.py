def plugin():
    return "loaded"
