"""Text that does not parse, refused the same way everywhere."""

from __future__ import annotations

import pytest

from engine import OtterSyntaxError, parse
from otterweb.parse_errors import parse_failure


def syntax_error(text: str) -> OtterSyntaxError:
    with pytest.raises(OtterSyntaxError) as raised:
        parse(text)
    return raised.value


def test_parse_failure_names_each_error_where_it_is() -> None:
    error = syntax_error("set $x 1;\nLog-Information hello;\nset $y 2;\n")
    assert parse_failure(error, name="deploy").messages == [
        "deploy:1:8: error: expected '.key', '=' or '[', found '1'",
        "deploy:3:8: error: expected '.key', '=' or '[', found '2'",
    ]


def test_parse_failure_keys_the_errors_by_the_field_given() -> None:
    refusal = parse_failure(syntax_error("set $x 1;"), name="deploy", field="content")
    assert refusal.message_dict == {
        "content": ["deploy:1:8: error: expected '.key', '=' or '[', found '1'"]
    }
