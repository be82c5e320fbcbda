#include <torch/library.h>

double mla_fwd(double x) { return x + 4.0; }

TORCH_LIBRARY(arch_mla, m) {
  m.def("mla_fwd", &mla_fwd);
}
