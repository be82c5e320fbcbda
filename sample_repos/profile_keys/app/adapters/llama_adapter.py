from app.models.llama import llama

MODELS = [llama]  # like SGLang's multimodal processors: the models it serves
