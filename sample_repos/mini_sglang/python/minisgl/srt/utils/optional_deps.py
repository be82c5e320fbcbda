def fast_sampler(logits):
    return logits
