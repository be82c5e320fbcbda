def legacy():
    return 0
