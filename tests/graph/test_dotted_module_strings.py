"""A dotted string naming a module is there to be loaded, perhaps through a variable
(``importlib.import_module(BACKENDS[name]).run()``): the module's public definitions are live,
as for a literal ``import_module`` argument. A computed name (``f"dyn.plugins.{name}"``,
``"dyn.codecs.c_" + kind``) may be any module under its literal start. Expectations from
sample_repos/dynamic_loading (its README says why each definition stays or goes)."""

from __future__ import annotations

from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "dynamic_loading"


def test_public_api_of_a_module_named_by_a_string_stays() -> None:
    result = run_scan(SAMPLE, [])
    planned = {(d.kind, d.path, d.symbol) for d in result.plan.deletions}
    assert planned == {
        ("delete_file", "dyn/orphan.py", None),
        ("delete_range", "dyn/backends/fast.py", "dyn.backends.fast:_unused_fast"),
        ("delete_range", "dyn/backends/slow.py", "dyn.backends.slow:_unused_slow"),
        # import_module(f"dyn.plugins.{name}"): any plugin may be loaded, its public API stays
        ("delete_range", "dyn/plugins/alpha.py", "dyn.plugins.alpha:_unused_alpha"),
        # import_module("dyn.codecs.c_" + kind): c_json.py may be loaded; legacy.py cannot be
        ("delete_file", "dyn/codecs/legacy.py", None),
    }


def test_both_modes_agree_on_the_loaded_modules() -> None:
    demand = run_scan(SAMPLE, [])
    full = run_scan(SAMPLE, [], parse_all=True)
    assert {(d.path, d.symbol) for d in demand.plan.deletions} == \
        {(d.path, d.symbol) for d in full.plan.deletions}
    # orphan.py is named by nothing: counted without a parse; the backends are parsed
    assert demand.counted == {"dyn/orphan.py"}


def test_the_literal_start_of_a_computed_name() -> None:
    from analyzer.extract.python import extract

    source = (b"import importlib\n\n\ndef f(x):\n"
              b"    importlib.import_module(f'a.b.{x}')\n"
              b"    importlib.import_module('a.c.' + x)\n"
              b"    importlib.import_module('a.d.m_%s' % x)\n"
              b"    importlib.import_module('a.e.{}'.format(x))\n"
              b"    importlib.import_module(x)\n"
              b"    importlib.import_module(f'{x}.models')\n"
              b"    importlib.import_module(f'.{x}', __package__)\n")
    walks = extract("m.py", source).package_walks
    assert [(w.kind, w.line, w.prefix) for w in walks] == [
        ("dynamic_import", 5, "a.b."), ("dynamic_import", 6, "a.c."),
        ("dynamic_import", 7, "a.d.m_"), ("dynamic_import", 8, "a.e."),
        ("dynamic_import", 9, None), ("dynamic_import", 10, None),
        ("dynamic_import", 11, None)]
