#include "edge_ops.h"

namespace edge {
namespace detail {

template <typename T>
__global__ void fill_kernel(T* out, T value, int n);

}  // namespace detail

struct Launcher {
  void launch(int n) const;
  static int blocks(int n) { return (n + 255) / 256; }
};

void Launcher::launch(int n) const {}

}  // namespace edge

at::Tensor plain_impl(const at::Tensor& a) { return a; }
