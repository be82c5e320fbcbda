def llama():
    return "llama"
