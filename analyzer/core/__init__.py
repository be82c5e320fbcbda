"""The query core's storage: every value depgraph keeps between runs lives in one on-disk store.

A stored value is the answer of a named, pure query (:class:`~analyzer.core.query.Query`) to
explicit inputs. Three rules hold for every such value, whichever stage asks:

- **one store** (:class:`~analyzer.core.store.Store`): ``<cache>/store/<query>/<version>/``,
  each entry in the checked format of :mod:`analyzer.util.cache_files` (a corrupted or half
  written entry reads as missing and is recomputed), written atomically;
- **one fingerprint rule** (:mod:`analyzer.core.code_version`): a query's version is a hash of
  depgraph's version, the parser wheels it names and the code it runs -- the static import
  closure of its modules inside ``analyzer`` (and the data folders it reads). An edit of the
  plan stage leaves the extraction's facts valid; an edit of ``analyzer.model`` (which every
  fact pickles) invalidates them;
- **one eviction policy** (:meth:`~analyzer.core.store.Store.evict`): least recently used
  first (a read touches the entry), down to a size cap (``DEPGRAPH_CACHE_MB``, default 2,048
  MB); entries of versions no longer current go first.

A query's key is the digest of its explicit inputs; a query kept per scanned tree (one slot
replaced by each scan) is keyed by the tree's path.
"""
