// The old pybind11 extension only macrollm/legacy.py imports.
#include <pybind11/pybind11.h>

int old_sum(int a, int b) { return a + b; }

PYBIND11_MODULE(_legacy_C, m) { m.def("old_sum", &old_sum); }
