"""Plan stage: from liveness to deletions (Python, native), and the soundness check of a plan
against the code it leaves."""
