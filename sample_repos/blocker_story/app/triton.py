class TritonBackend:
    name = "triton"
