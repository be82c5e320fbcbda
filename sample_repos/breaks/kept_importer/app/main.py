from app import rocm_attn

print(rocm_attn.NAME)
