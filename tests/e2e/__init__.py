"""End-to-end tests: whole scan/apply/verify cycles on samples, the browser report, packaging."""
