def run_ocr():
    return "ocr"
