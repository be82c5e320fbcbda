#include <torch/library.h>

TORCH_LIBRARY(extra, m) { m.def("extra() -> ()"); }
