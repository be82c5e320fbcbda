# The CPU build: the same `_C` extension, from the CPU kernels.
define_extension_target(
  _C
  DESTINATION vllm
  SOURCES csrc/cpu/ops_cpu.cpp
  WITH_SOABI)
