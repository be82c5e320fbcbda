import pytest

from app.assets.audio import AudioAsset
from app.multimodal.utils import fetch_image


@pytest.fixture
def audio():
    return AudioAsset("speech")


@pytest.fixture
def image():
    return fetch_image("http://example.com/cat.png")
