from ocr_case import Case


def test_ocr():
    assert Case().check() == "ocr"
