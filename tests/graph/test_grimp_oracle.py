"""Cross-check: on regular packages, depgraph's module import graph equals grimp's."""

from __future__ import annotations

import pytest

from analyzer.graph.python import module_import_edges
from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

grimp = pytest.importorskip("grimp")
SAMPLE = SAMPLES / "regular_pkgs"


def test_module_import_graph_equals_grimp(monkeypatch):
    monkeypatch.syspath_prepend(str(SAMPLE))
    expected = grimp.build_graph("shop", cache_dir=None)
    theirs = {(m, i) for m in expected.modules
              for i in expected.find_modules_directly_imported_by(m)}
    # no roots: every module is dead, so only a full parse sees every import
    ours = module_import_edges(run_scan(SAMPLE, [], use_default_roots=False,
                                        parse_all=True).index)
    assert ours == theirs
    # and both equal what reading the sample says
    assert ours == {
        ("shop", "shop.catalog"),
        ("shop.app", "shop.billing.invoice"),
        ("shop.app", "shop.billing.payments"),
        ("shop.app", "shop.billing.tax"),
        ("shop.app", "shop.catalog"),
        ("shop.app", "shop.util"),
        ("shop.billing.invoice", "shop.billing.tax"),
        ("shop.billing.invoice", "shop.catalog.product"),
        ("shop.billing.payments", "shop.util.fastpay"),
        ("shop.catalog", "shop.catalog.product"),
        ("shop.util", "shop.util.formatting"),
    }
