#pragma once

// Expand NAME before TORCH_LIBRARY stringifies it (imitates vLLM's core/registration.h).
#define _CONCAT(A, B) A##B
#define CONCAT(A, B) _CONCAT(A, B)

#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)

// The Python module init function of extension NAME.
#define REGISTER_EXTENSION(NAME) \
  PyMODINIT_FUNC CONCAT(PyInit_, NAME)() { return nullptr; }
