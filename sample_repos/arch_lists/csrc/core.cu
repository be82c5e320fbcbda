#include <torch/library.h>

double scale(double x) { return 2.0 * x; }

TORCH_LIBRARY(arch_core, m) {
  m.def("scale", &scale);
}
