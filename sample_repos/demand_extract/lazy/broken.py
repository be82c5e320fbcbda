def half(:
    return 1
