"""The pipeline: inputs (discovery, profile, digests) -> every stage in order -> a ScanResult;
the result cache; the replayed scan of verify."""
