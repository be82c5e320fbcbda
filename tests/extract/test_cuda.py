"""Extract stage, C/C++/CUDA: facts of the sample kernel files and of small snippets.

Expected values were written by hand from reading the files under
sample_repos/mini_sglang/sgl-kernel and sample_repos/native_edge_cases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.extract.cuda import CudaFacts, OpRegistration, extract
from analyzer.model import from_jsonable, to_jsonable
from tests.helpers import SAMPLES

KERNEL = SAMPLES / "mini_sglang" / "sgl-kernel"
EDGE = SAMPLES / "native_edge_cases"


def facts_of(path: Path) -> CudaFacts:
    return extract(path.name, path.read_bytes())


def op_rows(facts: CudaFacts) -> list[tuple]:
    return [(o.kind, o.op_name, o.function, o.dispatch_key, o.line) for o in facts.ops]


def test_common_extension_registrations() -> None:
    facts = facts_of(KERNEL / "csrc/common_extension.cc")
    # 8 m.def + 6 m.impl, read off the file
    assert op_rows(facts) == [
        ("def", "silu_and_mul", None, None, 11),
        ("impl", "silu_and_mul", "silu_and_mul", "CUDA", 12),
        ("def", "rmsnorm", None, None, 15),  # adjacent string literals
        ("impl", "rmsnorm", "rmsnorm", "CUDA", 18),
        ("def", "fp8_scaled_mm", None, None, 21),  # SCHEMA("...")
        ("impl", "fp8_scaled_mm", "fp8_scaled_mm", "CUDA", 22),
        ("def", "gelu_and_mul", None, None, 23),  # STRINGIFY(tokens)
        ("impl", "gelu_and_mul", "gelu_and_mul", "CUDA", 24),
        ("def", "get_workspace_size", "get_workspace_size", None, 27),
        ("def", "moe_align", "moe_align", "CUDA", 28),  # torch::dispatch(...)
        ("def", "topk_softmax", None, None, 31),
        ("impl", "topk_softmax", "topk_softmax", None, 32),
        ("def", "unused_op", None, None, 35),
        ("impl", "unused_op", "unused_op", "CUDA", 36),
    ]
    assert {(o.namespace, o.block) for o in facts.ops} == {
        ("mini_kernel", "TORCH_LIBRARY_FRAGMENT")}
    by_line = {o.line: o for o in facts.ops}
    assert by_line[15].schema == (
        "rmsnorm(Tensor! output, Tensor input, Tensor weight, float eps) -> ()")
    assert by_line[21].schema == "fp8_scaled_mm(Tensor a, Tensor b, Tensor scales) -> Tensor"
    assert by_line[23].schema == "gelu_and_mul(Tensor! out, Tensor input) -> ()"
    assert by_line[27].schema is None
    # the STRINGIFY line makes tree-sitter-cuda produce ERROR nodes; extraction goes on
    assert any(p.kind == "syntax-error" for p in facts.problems)
    assert facts.functions == ()  # the TORCH_LIBRARY_FRAGMENT block is not a function


def test_flashmla_and_flash_extension_registrations() -> None:
    mla = facts_of(KERNEL / "csrc/flashmla_extension.cc")
    assert op_rows(mla) == [
        ("def", "get_mla_metadata", None, None, 9),
        ("impl", "get_mla_metadata", "get_mla_metadata", "CUDA", 10),
        ("def", "mla_decode", None, None, 12),
        ("impl", "mla_decode", "mla_decode", "CUDA", 15),
    ]
    assert mla.ops[2].schema == ("mla_decode(Tensor q, Tensor kv_cache, Tensor block_table, "
                                 "float softmax_scale) -> Tensor[]")
    assert [(i.target, i.system, i.line) for i in mla.includes] == [
        ("torch/all.h", True, 2), ("torch/library.h", True, 3),
        ("flashmla/mla_utils.cuh", False, 5), ("mini_kernel_ops.h", False, 6)]
    fa3 = facts_of(KERNEL / "csrc/flash_extension.cc")
    assert op_rows(fa3) == [("def", "fwd", None, None, 8), ("impl", "fwd", "mha_fwd", "CUDA", 9)]


def test_kernel_functions_and_includes() -> None:
    act = facts_of(KERNEL / "csrc/elementwise/activation.cu")
    assert [(i.target, i.system) for i in act.includes] == [
        ("torch/all.h", True), ("mini_kernel_ops.h", False), ("utils.cuh", False)]
    assert [(f.name, f.qualified_name, f.start_line, f.end_line, f.is_definition)
            for f in act.functions] == [
        ("act_and_mul_kernel", "mini_kernel::act_and_mul_kernel", 9, 12, True),  # template
        ("silu_and_mul", "silu_and_mul", 16, 19, True),
        ("gelu_and_mul", "gelu_and_mul", 21, 23, True),
    ]
    header = facts_of(KERNEL / "include/mini_kernel_ops.h")
    assert [f.name for f in header.functions] == [
        "silu_and_mul", "gelu_and_mul", "rmsnorm", "fp8_scaled_mm", "get_workspace_size",
        "moe_align", "topk_softmax", "unused_op", "mha_fwd"]
    assert not any(f.is_definition for f in header.functions)
    assert header.ops == () and header.problems == ()


def test_nested_namespaces_and_classes() -> None:
    facts = facts_of(EDGE / "src/kernel.cu")
    assert [(f.qualified_name, f.start_line, f.is_definition) for f in facts.functions] == [
        ("edge::detail::fill_kernel", 7, False),
        ("edge::Launcher::launch", 12, False),
        ("edge::Launcher::blocks", 13, True),
        ("edge::Launcher::launch", 16, True),  # out-of-line `Launcher::launch` in ns edge
        ("plain_impl", 20, True),
    ]


def test_unparseable_file_keeps_every_registration() -> None:
    facts = facts_of(EDGE / "src/registrations.cc")
    kinds = {p.kind for p in facts.problems}
    assert "syntax-error" in kinds and "invalid-utf8" in kinds
    # 6 m.def + 3 m.impl in TORCH_LIBRARY, 2 m.impl in TORCH_LIBRARY_IMPL
    assert [(o.block, o.kind, o.op_name, o.function, o.dispatch_key, o.line)
            for o in facts.ops] == [
        ("TORCH_LIBRARY", "def", "plain", None, None, 12),
        ("TORCH_LIBRARY", "impl", "plain", "plain_impl", "CUDA", 13),
        ("TORCH_LIBRARY", "def", "weird", "weird_impl", None, 14),
        ("TORCH_LIBRARY", "def", "extra_op.out", None, None, 16),  # overload kept in op_name
        ("TORCH_LIBRARY", "impl", "extra_op.out", "extra_cpu", "CPU", 18),  # TORCH_FN(fn)
        ("TORCH_LIBRARY", "def", "lambda_op", None, None, 19),  # lambda: no named function
        ("TORCH_LIBRARY", "def", "arrow_op", None, None, 20),
        ("TORCH_LIBRARY_IMPL", "impl", "weird", "weird_cuda", "CUDA", 24),  # key from block
        ("TORCH_LIBRARY_IMPL", "impl", "arrow_op", "ns::arrow_cuda", "CUDA", 25),
    ]
    assert facts.ops[2].schema == "weird(Tensor a, int b) -> Tensor"
    assert {o.namespace for o in facts.ops} == {"edge"}
    assert [(m.name, m.line, m.functions) for m in facts.pybind_modules] == [
        ("edge_py", 29, ("helper", "other"))]
    assert facts.functions == ()  # BEGIN_KERNEL_TABLE(edge) { ... } is a macro, not a function


SNIPPET = b"""\
#include "a.h"
// m.def("commented_out(Tensor x) -> ()");
namespace outer { namespace inner {
int helper(int x);
}}
#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("a(Tensor x) -> Tensor");
  /* ops.def("b(Tensor x) -> Tensor"); */
  ops.impl("a", torch::kCUDA, &outer::inner::helper);
  other.def("not_a_registration");
  ops.def("c.Tensor(Tensor x) -> Tensor", torch::dispatch(torch::kCPU, c_cpu));
}
"""


def test_pybind_module_functions_and_classes() -> None:
    facts = extract("bind.cpp", b"""\
PYBIND11_MODULE(radix_cpp, m) {
  namespace py = pybind11;
  py::class_<Tree>(m, "Tree").def(py::init<int>()).def("match", &Tree::match);
  py::enum_<Mode>(m, "Mode");
  m.def("make_tree", &make_tree, "doc");
}
""")
    assert [(p.name, p.line, p.functions, p.classes) for p in facts.pybind_modules] == [
        ("radix_cpp", 1, ("make_tree",), ("Tree", "Mode"))]
    assert facts.ops == ()


def test_snippet_wrapper_macro_receiver_and_comments() -> None:
    facts = extract("snippet.cc", SNIPPET)
    assert [(o.namespace, o.block, o.kind, o.op_name, o.function, o.dispatch_key, o.line)
            for o in facts.ops] == [
        ("TORCH_EXTENSION_NAME", "TORCH_LIBRARY", "def", "a", None, None, 8),
        ("TORCH_EXTENSION_NAME", "TORCH_LIBRARY", "impl", "a", "outer::inner::helper", "CUDA",
         10),
        ("TORCH_EXTENSION_NAME", "TORCH_LIBRARY", "def", "c.Tensor", "c_cpu", "CPU", 12),
    ]
    assert [f.qualified_name for f in facts.functions] == ["outer::inner::helper"]


@pytest.mark.parametrize("data", [
    b"", b"\x00\x01\x02binary", b"\xff\xfe\xfd", b"TORCH_LIBRARY(", b"TORCH_LIBRARY(x, m) {",
    b"TORCH_LIBRARY(x, m) { m.def(", b'TORCH_LIBRARY(x, m) { m.def("unterminated', b"}}}{{{",
    b"m.impl(\"a\", &", b"PYBIND11_MODULE(p, m) { m.def(&f); }", b"TORCH_LIBRARY() { m.def(); }",
])
def test_malformed_input_never_raises(data: bytes) -> None:
    facts = extract("bad.cu", data)
    assert isinstance(facts, CudaFacts)


def test_json_round_trip() -> None:
    for path in (KERNEL / "csrc/common_extension.cc", EDGE / "src/registrations.cc",
                 EDGE / "src/kernel.cu"):
        facts = facts_of(path)
        assert from_jsonable(CudaFacts, to_jsonable(facts)) == facts
    op = OpRegistration("ns", "x", None, "impl", None, None, "TORCH_LIBRARY_IMPL", 1)
    assert from_jsonable(OpRegistration, to_jsonable(op)) == op


MACRO_OPS = SAMPLES / "native_macro_ops" / "csrc"


def test_macro_namespaces_as_written_and_block_macro() -> None:
    facts = facts_of(MACRO_OPS / "torch_bindings.cpp")
    # namespace text as written (tokens joined), the wrapper macro kept next to the block kind
    assert sorted({(o.namespace, o.macro, o.block) for o in facts.ops}) == [
        ("CONCAT(TORCH_EXTENSION_NAME,_cache_ops)", "TORCH_LIBRARY_EXPAND", "TORCH_LIBRARY"),
        ("TORCH_EXTENSION_NAME", "TORCH_LIBRARY_EXPAND", "TORCH_LIBRARY"),
    ]
    assert [(o.op_name, o.kind, o.line, o.end_line) for o in facts.ops
            if o.op_name == "concat_and_cache_mla"] == [
        ("concat_and_cache_mla", "def", 23, 25), ("concat_and_cache_mla", "impl", 26, 26)]


def test_defines_keep_bodies_of_library_wrappers_and_short_function_macros() -> None:
    facts = facts_of(MACRO_OPS / "core/registration.h")
    assert [(d.name, d.params, d.body, d.line) for d in facts.defines] == [
        ("_CONCAT", ("A", "B"), "A##B", 4),
        ("CONCAT", ("A", "B"), "_CONCAT(A, B)", 5),
        ("TORCH_LIBRARY_EXPAND", ("NAME", "MODULE"), "TORCH_LIBRARY(NAME, MODULE)", 7),
        # continued on line 11
        ("REGISTER_EXTENSION", ("NAME",),
         "PyMODINIT_FUNC CONCAT(PyInit_, NAME)() { return nullptr; }", 10),
    ]
    snippet = extract("x.h", b"#define FLAG\n/* #define NOT_ME 1 */\n#  define LIB(N, M) \\\n"
                             b"  TORCH_LIBRARY_FRAGMENT(N, M)\n")
    assert [(d.name, d.params, d.body, d.line) for d in snippet.defines] == [
        ("FLAG", None, "", 1), ("LIB", ("N", "M"), "TORCH_LIBRARY_FRAGMENT(N, M)", 3)]
