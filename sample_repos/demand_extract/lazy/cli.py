from lazy.server import serve

if __name__ == "__main__":
    serve("llama")
