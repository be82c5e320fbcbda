def expert_count():
    return 8
