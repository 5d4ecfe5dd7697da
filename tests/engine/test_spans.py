"""Span: moving a span measured in a string's body to its place in the script, and trimming."""

from __future__ import annotations

from engine.spans import Span, span_at


def test_span_shifted_moves_columns_only_on_the_first_line() -> None:
    body = "ab\ncd"
    # the body starts at offset 10, line 3, column 7 of the script
    assert span_at(body, 1, 1).shifted(10, 3, 7) == Span(11, 12, 3, 8, 3, 9)
    assert span_at(body, 3, 2).shifted(10, 3, 7) == Span(13, 15, 4, 1, 4, 3)


def test_span_shifted_keeps_the_end_column_of_a_span_that_leaves_the_first_line() -> None:
    assert span_at("ab\ncd", 1, 3).shifted(10, 3, 7) == Span(11, 14, 3, 8, 4, 2)


def test_span_shifted_by_the_script_start_is_the_same_span() -> None:
    span = span_at("ab\ncd", 1, 3)
    assert span.shifted(0, 1, 1) == span


def test_span_trimmed_drops_characters_at_both_ends() -> None:
    text = "x =   hello  ;"
    assert span_at(text, 3, 10).trimmed(3, 2) == span_at(text, 6, 5)


def test_span_trimmed_by_nothing_is_the_same_span() -> None:
    span = span_at("hello", 1, 3)
    assert span.trimmed() == span
