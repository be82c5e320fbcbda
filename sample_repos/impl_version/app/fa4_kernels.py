def fa4_varlen(q):
    return ("fa4", q)
