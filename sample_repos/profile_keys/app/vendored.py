def vendored():
    return "excluded from the scan"
