"""Analysis stage: questions asked of the finished graph, one module per question.

Nothing here parses or reads files: it only queries the graph built by ``analyzer.graph.python``.
"""
