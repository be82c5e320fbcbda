BACKENDS = ["flashinfer", "triton", "fa3", "flashmla"]
