def old_api():
    return 1
