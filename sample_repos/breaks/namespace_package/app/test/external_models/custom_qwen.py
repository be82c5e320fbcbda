from app.qwen import QwenModel


class CustomQwen(QwenModel):
    pass
