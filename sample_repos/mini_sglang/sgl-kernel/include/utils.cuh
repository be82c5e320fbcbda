// Small device helpers shared by the elementwise kernels.
#pragma once

namespace mini_kernel {

template <typename T>
__device__ __forceinline__ T silu(T x) {
  return x / (T(1) + expf(-x));
}

}  // namespace mini_kernel
