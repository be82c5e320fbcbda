"""analyzer/nodes.py: node ids say what they are by their prefix; ``describe`` names a node for
chains and reports. Expected ids written from the module's docstring."""

from __future__ import annotations

import networkx as nx
import pytest

from analyzer.nodes import (
    PREFIXES,
    SUPER_ROOT,
    cmake_node,
    describe,
    external_node,
    fetch_node,
    file_node,
    module_node,
    op_node,
    symbol_node,
    target_node,
)


@pytest.mark.parametrize(("node", "expected"), [
    pytest.param(module_node("pkg.models.llama"), "py:pkg.models.llama", id="module"),
    pytest.param(symbol_node("pkg.models.llama", "Llama"), "py:pkg.models.llama:Llama",
                 id="symbol"),
    # an external module is its top-level distribution: torch.nn.functional -> torch
    pytest.param(external_node("torch.nn.functional"), "ext:torch", id="external-top-level"),
    pytest.param(external_node("numpy"), "ext:numpy", id="external-plain"),
    pytest.param(file_node("csrc/gemm/fp8.cu"), "file:csrc/gemm/fp8.cu", id="native-file"),
    pytest.param(cmake_node("cmake/utils.cmake"), "cmake:cmake/utils.cmake", id="cmake-file"),
    pytest.param(target_node("common_ops"), "target:common_ops", id="target"),
    pytest.param(fetch_node("repo-flashmla"), "fetch:repo-flashmla", id="fetch"),
    pytest.param(op_node("sgl_kernel", "rmsnorm"), "op:sgl_kernel::rmsnorm", id="op"),
    # torch.ops.ns.op.default is an overload of op: the same node
    pytest.param(op_node("sgl_kernel", "rmsnorm.default"), "op:sgl_kernel::rmsnorm",
                 id="op-overload"),
])
def test_node_ids(node: str, expected: str) -> None:
    assert node == expected
    assert node.startswith(PREFIXES)


def test_super_root_is_no_node_id() -> None:
    assert not SUPER_ROOT.startswith(PREFIXES)


def test_describe() -> None:
    graph = nx.DiGraph()
    graph.add_node("py:pkg.mod", kind="module", path="pkg/mod.py")
    graph.add_node("py:pkg.mod:f", kind="symbol", path="pkg/mod.py", start_line=12)
    graph.add_node("file:csrc/k.cu", kind="native_file", path="csrc/k.cu")
    graph.add_node("op:ns::gelu", kind="op", path="csrc/reg.cc", start_line=4)
    graph.add_node("ext:torch", kind="external")
    assert describe(graph, "py:pkg.mod") == "pkg.mod (pkg/mod.py)"
    assert describe(graph, "py:pkg.mod:f") == "pkg.mod:f (pkg/mod.py:12)"
    # the path is part of the id already: not repeated
    assert describe(graph, "file:csrc/k.cu") == "file:csrc/k.cu"
    assert describe(graph, "op:ns::gelu") == "ns::gelu (csrc/reg.cc:4)"
    assert describe(graph, "ext:torch") == "ext:torch"
