"""Output stage: formatting a computed scan -- manifest, HTML, Markdown, SARIF, graph export."""
