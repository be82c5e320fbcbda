def fa3_metadata(q):
    return len(q)


def fa3_fwd(q):
    meta = fa3_metadata(q)
    return q, meta


def fa3_varlen(q):
    return q
