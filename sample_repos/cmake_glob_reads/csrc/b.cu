// a kernel the glob lists
__global__ void b_kernel() {}
