import pytest

from app.grok import GrokModel


@pytest.fixture
def grok():
    return GrokModel()
