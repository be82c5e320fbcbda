def pretty(value):
    return f"<{value}>"
