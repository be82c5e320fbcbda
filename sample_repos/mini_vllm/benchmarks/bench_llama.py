"""Benchmark script: a main-guarded script of benchmarks/ (the profile's test_paths)."""

from vllm.models.llama import LlamaForCausalLM

if __name__ == "__main__":
    print(LlamaForCausalLM().forward(1))
