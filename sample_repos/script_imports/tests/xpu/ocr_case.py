from pkg.ocr import run_ocr


class Case:
    def check(self):
        return run_ocr()
