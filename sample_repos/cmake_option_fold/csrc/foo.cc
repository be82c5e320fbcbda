#include <torch/library.h>

double foo(double x) { return x + 1.0; }

TORCH_LIBRARY(fold_foo, m) {
  m.def("foo", &foo);
}
