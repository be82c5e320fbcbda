"""Graph stage: one networkx DiGraph of modules, symbols, native files, ops, targets and fetches;
node ids and kinds are owned by ``analyzer.graph.nodes``."""
