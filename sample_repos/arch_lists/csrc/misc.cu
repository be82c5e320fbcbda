#include <torch/library.h>

double misc(double x) { return -x; }

TORCH_LIBRARY(arch_misc, m) {
  m.def("misc", &misc);
}
