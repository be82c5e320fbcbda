// a kernel the glob lists
__global__ void a_kernel() {}
