class AttentionConfig:
    def __init__(self):
        self.attention_backend = "CPU_ATTN"
