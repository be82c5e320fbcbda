"""What Python code reads of ``torch.ops`` (graph/native.py ``torch_ops_reads``): aliases,
``getattr``/``hasattr`` with a literal name, and existence probes that use no op."""

from __future__ import annotations

from analyzer.extract.python import extract
from analyzer.graph.native import torch_ops_reads
from analyzer.resolve.python import PyModule


def reads(source: str) -> list[tuple[str | None, str | None, str, int]]:
    facts = extract("m.py", source.encode())
    module = PyModule("m", "m.py", False, facts)
    first = torch_ops_reads(module)
    assert torch_ops_reads(module) is first  # computed once per module, then reused
    return list(first)


def test_a_module_level_alias_reads_the_ops_named_through_it() -> None:
    assert reads("import torch\n\nkernel = torch.ops.sgl_kernel\n\n\ndef f():\n"
                 "    return kernel.init_cpu_threads_env(1)\n") == [
        ("sgl_kernel", "init_cpu_threads_env", "f", 7)]


def test_the_alias_passed_on_whole_reads_the_whole_namespace() -> None:
    assert reads("import torch\n\nkernel = torch.ops.sgl_kernel\n\n\ndef f(name):\n"
                 "    return getattr(kernel, name)\n") == [("sgl_kernel", None, "f", 7)]


def test_getattr_or_hasattr_with_a_literal_names_the_op() -> None:
    assert reads("import torch\n\nok = hasattr(torch.ops.sgl_kernel, 'convert_weight')\n"
                 "fn = getattr(torch.ops.sgl_kernel, 'fwd')\n") == [
        ("sgl_kernel", "convert_weight", "", 3), ("sgl_kernel", "fwd", "", 4)]


def test_existence_probes_read_no_op() -> None:
    # patch_torch.register_fake_if_exists / utils.direct_register_custom_op look-alikes
    assert reads("import torch\n\n\ndef register(namespace, op):\n"
                 "    ops = getattr(torch.ops, namespace, None)\n"
                 "    if ops and hasattr(ops, op):\n        return True\n\n\n"
                 "def exists(lib, op):\n"
                 "    return hasattr(torch.ops, lib) and hasattr(getattr(torch.ops, lib), op)\n"
                 ) == []


def test_a_bound_namespace_used_otherwise_is_read_whole() -> None:
    assert reads("import torch\n\n\ndef call(namespace, op):\n"
                 "    ops = getattr(torch.ops, namespace)\n    return ops.run(op)\n") == [
        (None, None, "call", 5)]


FALLBACKS = """\
import torch

_FAKE_OPS = set()


def fallback_ops():
    ops = torch.ops.sgl_kernel
    for name in sorted(_FAKE_OPS):
        try:
            op = getattr(getattr(ops, name), "default")
        except {handler}:
            {then}
        register(op)
"""


def test_a_getattr_whose_attribute_error_is_skipped_reads_no_op() -> None:
    # cpu_graph_runner.register_inductor_fallback_ops look-alike: an op that is gone is
    # skipped, so no op is needed
    assert reads(FALLBACKS.format(handler="AttributeError", then="continue")) == []
    assert reads(FALLBACKS.format(handler="(AttributeError, RuntimeError)",
                                  then="continue")) == []


def test_a_getattr_whose_failure_is_raised_again_reads_the_whole_namespace() -> None:
    for handler, then in (("AttributeError", "raise"), ("KeyError", "continue")):
        assert reads(FALLBACKS.format(handler=handler, then=then)) == [
            ("sgl_kernel", None, "fallback_ops", 7)], (handler, then)
