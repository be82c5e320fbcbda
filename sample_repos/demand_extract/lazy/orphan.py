def unused():
    return 0
