"""analyzer/errors.py: each error's exit code (the README documents them) and ``suggest``."""

from __future__ import annotations

import pytest

from analyzer.errors import (
    EXIT_REMOVABLE,
    EXIT_USAGE,
    EXIT_VERIFY,
    ApplyError,
    DepgraphError,
    InputError,
    OutputError,
    ProfileError,
    RootError,
    ScanError,
    suggest,
)


@pytest.mark.parametrize(("error", "code"), [
    pytest.param(DepgraphError, 1, id="any-error"),
    pytest.param(InputError, 3, id="input"),
    pytest.param(ScanError, 3, id="scan-is-an-input-error"),
    pytest.param(RootError, 4, id="root"),
    pytest.param(OutputError, 5, id="output"),
    pytest.param(ProfileError, 6, id="profile"),
    pytest.param(ApplyError, 7, id="apply"),
])
def test_exit_codes(error: type[DepgraphError], code: int) -> None:
    assert error.exit_code == code
    assert issubclass(error, DepgraphError)
    assert error("x").exit_code == code


def test_codes_that_are_no_error_are_distinct() -> None:
    codes = {EXIT_REMOVABLE, EXIT_USAGE, EXIT_VERIFY} | {
        e.exit_code for e in (InputError, RootError, OutputError, ProfileError, ApplyError)}
    assert (EXIT_REMOVABLE, EXIT_USAGE, EXIT_VERIFY) == (1, 2, 8)
    assert len(codes) == 8


@pytest.mark.parametrize(("word", "choices", "several", "expected"), [
    pytest.param("flashmal", ["fa3", "flashmla", "ascend"], False,
                 " (did you mean 'flashmla'?)", id="one-close-name"),
    pytest.param("zzz", ["fa3", "flashmla"], False, "", id="nothing-close"),
    pytest.param("llam", ["llama", "llama2", "mixtral"], True, "; did you mean: llama, llama2",
                 id="several"),
    pytest.param("zzz", ["llama"], True, "; no similar name found", id="several-none-close"),
    pytest.param("x", [], False, "", id="no-choices"),
])
def test_suggest(word: str, choices: list[str], several: bool, expected: str) -> None:
    assert suggest(word, choices, several=several) == expected
