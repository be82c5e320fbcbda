"""Extraction stage: per file, per language, a pure function of (path, bytes) -> facts.

Each language module exposes ``extract(path: str, data: bytes) -> <Language>Facts``.
Tree-sitter plumbing (languages, parsers, query loading) lives in ``treesitter``.
"""
