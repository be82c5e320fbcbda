// one folder down: csrc/*.cu does not match it
__global__ void c_kernel() {}
