// A plain shared library loaded with ctypes by path (a look-alike).
extern "C" void* macro_malloc(unsigned long size) { return nullptr; }
