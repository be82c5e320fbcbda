// Compiled into core_ops only when ENABLE_FOO is on.
double foo_extra(double x) { return x - 1.0; }
