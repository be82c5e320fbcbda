"""Report stage: functions that render a finished ``ScanResult``; they never compute."""
