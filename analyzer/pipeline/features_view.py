"""Pipeline, ``depgraph features``: the features of the profile a tree gets, as data -- what
each is, what it requires, whether the profile drops it by default and whether this run
(``--drop``/``--keep``) drops it, and its anchors on this tree (matched, stale, the candidate
files for stale ones: ``analysis.anchors``). Discover, extract (every file: the answer
does not depend on roots; the facts cache makes it a second on a warm cache) and resolve;
no liveness, no plan."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from analyzer.analysis.anchors import FeatureAnchors, feature_anchors
from analyzer.config.options import ScanOptions
from analyzer.config.profile import effective_cmake_options, merge_drops
from analyzer.config.types import Profile
from analyzer.core.session import session
from analyzer.errors import ProfileError
from analyzer.extract.runner import extract_all
from analyzer.extract.source_bytes import SourceBytes
from analyzer.pipeline.analyze import RunSettings
from analyzer.pipeline.inputs import gather_inputs
from analyzer.resolve.tree import build_tree


@dataclass(frozen=True)
class FeatureRow:
    name: str
    description: str
    requires: tuple[str, ...]
    by_default: bool  # the profile drops it when nothing is said (default_drops, requires)
    dropped: bool  # this run drops it (default drops + --drop - --keep)
    anchors: FeatureAnchors


@dataclass(frozen=True)
class FeaturesView:
    profile: Profile
    rows: list[FeatureRow]


def features_view(path: Path, options: ScanOptions, settings: RunSettings) -> FeaturesView:
    """The features of the profile ``path`` gets; ProfileError when it gets none."""
    inputs = gather_inputs(path, options, cache_dir=settings.cache_dir)
    profile = inputs.profile
    if profile is None:
        why = "--no-profile" if not options.use_profile else "no profile matches this tree"
        raise ProfileError(f"no features to list: {why} (give --profile NAME or FILE)")
    defaults = merge_drops(profile, (), ())
    drops = merge_drops(profile, options.drop, options.keep)
    found = inputs.discovery
    reads = inputs.reads()
    with session(settings.cache_dir):
        files = extract_all(found.root, list(found.files), jobs=settings.jobs,
                            progress=settings.progress, read=reads)
        sources = SourceBytes(found.root, {f.path: r.digest for f, r in zip(
            found.files, reads, strict=True) if r.data is not None})
        tree = build_tree(found, files, effective_cmake_options(profile, drops), sources)
    features = list(profile.features.values())
    anchors = {a.feature: a for a in feature_anchors(profile, features, tree.index,
                                                     list(tree.files), tree.project)}
    rows = [FeatureRow(f.name, f.description, tuple(f.requires), f.name in defaults,
                       f.name in drops, anchors[f.name]) for f in features]
    return FeaturesView(profile, rows)
