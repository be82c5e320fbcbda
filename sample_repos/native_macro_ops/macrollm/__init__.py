"""macrollm: a vLLM-shaped sample package whose kernels register ops under macro namespaces."""
