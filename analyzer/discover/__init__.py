"""Discover stage: walk the tree (ignore rules, languages, Python source roots), content digests,
entry points the packaging declares, and the cached walk."""
