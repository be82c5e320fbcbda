def flash_attn_varlen(q, ver=3):
    if ver == 3:
        return ("fa3", q)
    elif ver == 4:
        from app.fa4_kernels import fa4_varlen

        return fa4_varlen(q)
    raise ValueError(ver)
