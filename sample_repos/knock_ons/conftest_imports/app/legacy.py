def old_run():
    return 0
