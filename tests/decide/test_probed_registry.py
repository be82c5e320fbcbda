"""A probed registry selects by no value (issue 49, item 2), on sample_repos/probed_registry,
read by hand: app/platforms.py's PLUGINS dict (``probed = true`` in the profile) holds
"cuda" and "cpu"; resolve() calls every entry's probe. Live code hands "cpu" on twice --
``load("weights.pt", map_location="cpu")`` (a keyword, main.py:15) and ``return "cpu"``
(host_device, main.py:11) -- and neither selects a platform. With cpu dropped, its entry
(platforms.py:16), its probe cpu_plugin (10-11) and app/cpu_platform.py (2 lines, named only
by the probe's dotted string) go: 5 lines. Without ``probed`` the same values block the key."""

from __future__ import annotations

import shutil
from pathlib import Path

from analyzer.pipeline.scan import run_scan
from tests.helpers import SAMPLES

SAMPLE = SAMPLES / "probed_registry"


def edits(root: Path) -> set[tuple[str, str, int | None, int | None]]:
    result = run_scan(root, [])
    return {(d.kind, d.path, d.start_line, d.end_line) for d in result.plan.deletions}


def test_values_handed_on_select_no_probed_entry() -> None:
    result = run_scan(SAMPLE, [])
    assert result.profile.blocked_keys == {}
    assert edits(SAMPLE) == {("delete_file", "app/cpu_platform.py", None, None),
                             ("delete_range", "app/platforms.py", 10, 11),
                             ("delete_range", "app/platforms.py", 16, 16)}
    cpu = {f.name: f for f in result.features}["cpu"]
    assert (cpu.files_removable, cpu.lines_removable, len(cpu.blocked)) == (1, 5, 0)


def test_without_probed_the_same_values_block_the_key(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    profile = tree / "depgraph.toml"
    profile.write_text(profile.read_text().replace("probed = true\n", ""))
    result = run_scan(tree, [])
    # the first producer, by module then line: main.py's return "cpu" (line 11)
    assert result.profile.blocked_keys == {"cpu": "app/main.py:11: return 'cpu'"}
    assert edits(tree) == set()
