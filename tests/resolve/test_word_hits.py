"""Finding a function's name as a whole word in a file's bytes (``call_args.word_hits``), the
first step of reading its callers: a name inside a longer name is no hit, a name at the
start or end of the file is, non-word bytes (dots, brackets, UTF-8) bound a word. Checked by
hand, then against the word pattern it replaces on random texts."""

from __future__ import annotations

import random

from analyzer.resolve.call_args import _words, word_hits


def test_whole_words_only_in_order() -> None:
    data = b"f(x)\nff(f)\nobj.f(1)  # f_ _f f\nf"
    assert word_hits(data, {b"f"}) == [(0, b"f"), (8, b"f"), (15, b"f"), (29, b"f"), (31, b"f")]


def test_several_names_sorted_by_offset() -> None:
    data = b"gate(a)\nrun(gate)\nrunner(gate_x)\n"
    assert word_hits(data, {b"gate", b"run"}) == [(0, b"gate"), (8, b"run"), (12, b"gate")]


def test_non_ascii_bytes_bound_a_word() -> None:
    data = "éf(x) éfé".encode()  # (é is two bytes, neither a word byte)
    assert word_hits(data, {b"f"}) == [(2, b"f"), (9, b"f")]


def test_a_name_repeated_inside_itself() -> None:
    assert word_hits(b"aaa aa aaaa aa", {b"aa"}) == [(4, b"aa"), (12, b"aa")]


def test_same_hits_as_the_word_pattern_on_random_texts() -> None:
    rng = random.Random(7)
    alphabet = b"ab_1 .(\n\xc3"
    for _ in range(3000):
        data = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        names = {bytes(rng.choice(b"ab_1") for _ in range(rng.randint(1, 3)))
                 for _ in range(rng.randint(1, 3))}
        expected = [(m.start(), m.group()) for m in _words(names).finditer(data)]
        assert word_hits(data, names) == expected, (data, names)


def test_a_name_with_a_non_word_byte_uses_the_pattern() -> None:
    assert word_hits(b"a.b(x) a.b", {b"a.b"}) == [(0, b"a.b"), (7, b"a.b")]
