"""depgraph tests: tests/<stage>/ mirrors analyzer/<stage>/, tests/e2e/ holds whole cycles."""
