"""The as_value filter: a recorded value as a script writes it."""

from __future__ import annotations

import pytest

from otterweb.templatetags.values import as_value


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (True, "true"),
        (False, "false"),
        (None, "—"),
        ("", ""),
        ("Welcome, stranger", "Welcome, stranger"),
        (["a", "b"], '["a", "b"]'),
        ({"user": "ünï"}, '{"user": "ünï"}'),
    ],
)
def test_as_value_writes_values_as_a_script_would(value, shown) -> None:
    assert as_value(value) == shown
