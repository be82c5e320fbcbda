// Host entry points of the mini_kernel ops (imitates sgl-kernel/include/sgl_kernel_ops.h).
#pragma once

#include <Python.h>
#include <torch/all.h>

#define _CONCAT(A, B) A##B
#define CONCAT(A, B) _CONCAT(A, B)
#define _STRINGIFY(A) #A
#define STRINGIFY(A) _STRINGIFY(A)

#define REGISTER_EXTENSION(NAME)                                                       \
  PyMODINIT_FUNC CONCAT(PyInit_, NAME)() {                                             \
    static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, STRINGIFY(NAME), nullptr, 0}; \
    return PyModule_Create(&module);                                                   \
  }

void silu_and_mul(at::Tensor& out, at::Tensor& input);
void gelu_and_mul(at::Tensor& out, at::Tensor& input);
void rmsnorm(at::Tensor& output, at::Tensor& input, at::Tensor& weight, double eps);
torch::Tensor fp8_scaled_mm(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& scales);
int64_t get_workspace_size();
torch::Tensor moe_align(torch::Tensor topk_ids, int64_t num_experts);
void topk_softmax(torch::Tensor& out, torch::Tensor& logits);
torch::Tensor unused_op(torch::Tensor x);
std::vector<at::Tensor> mha_fwd(at::Tensor q, at::Tensor k, at::Tensor v, double softmax_scale, bool is_causal);
