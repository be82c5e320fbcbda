from app.engine import run


def test_run(audio):
    assert run() == "prompt"
    assert audio.name == "speech"
