"""Cron expressions through croniter: what is accepted, the next time in a time zone (across
daylight saving time, as Vixie cron does), and the common ones in words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from otterweb.schedules.cron import (
    describe,
    next_time,
    next_times,
    validate_cron,
    validate_time_zone,
)


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    "expression", ["0 * * * *", "*/15 * * * *", "30 2 * * 1-5", "0 0 1 * *", "@daily", "@HOURLY"]
)
def test_validate_cron_accepts_five_fields_and_macros(expression) -> None:
    validate_cron(expression)


@pytest.mark.parametrize(
    "expression",
    ["", "x", "61 * * * *", "* * * *", "* * * * * *", "0 0 * * * 2030", "@reboot", "0 0 30 2 *"],
)
def test_validate_cron_refuses_what_is_no_five_field_expression_or_names_no_time(
    expression,
) -> None:
    with pytest.raises(ValidationError):
        validate_cron(expression)


def test_validate_time_zone_takes_zoneinfo_names_only() -> None:
    for name in ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"):
        validate_time_zone(name)
    for name in ("CEST", "Berlin", "Europe/Atlantis", "", "../etc/passwd", "localtime"):
        with pytest.raises(ValidationError, match="time zone"):
            validate_time_zone(name)


def test_next_time_is_strictly_after_and_in_utc() -> None:
    assert next_time("0 * * * *", "UTC", after=utc(2026, 1, 1, 10, 0)) == utc(2026, 1, 1, 11, 0)
    assert next_time("0 * * * *", "UTC", after=utc(2026, 1, 1, 10, 0, 1)) == utc(2026, 1, 1, 11)
    assert next_time("30 2 * * *", "Asia/Kolkata", after=utc(2026, 1, 1)) == utc(2026, 1, 1, 21)


def test_next_time_berlin_spring_forward_runs_the_skipped_time_once_when_the_clocks_jump() -> None:
    # 2026-03-29: 02:00 CET becomes 03:00 CEST; 02:30 does not exist that day
    times = next_times("30 2 * * *", "Europe/Berlin", after=utc(2026, 3, 27, 12), count=4)
    assert times == [
        utc(2026, 3, 28, 1, 30),  # 02:30 CET
        utc(2026, 3, 29, 1, 0),  # 03:00 CEST, the moment the clocks jump
        utc(2026, 3, 30, 0, 30),  # 02:30 CEST
        utc(2026, 3, 31, 0, 30),
    ]


def test_next_time_berlin_fall_back_runs_the_repeated_time_once() -> None:
    # 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 happens twice
    times = next_times("30 2 * * *", "Europe/Berlin", after=utc(2026, 10, 23, 12), count=3)
    assert times == [utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)]
    # from inside the repeated hour, the day's run is done: the next is tomorrow's
    assert next_time("30 2 * * *", "Europe/Berlin", after=utc(2026, 10, 25, 0, 45)) == utc(
        2026, 10, 26, 1, 30
    )


def test_next_time_new_york_both_changes() -> None:
    # 2026-03-08 02:00 EST -> 03:00 EDT; 2026-11-01 02:00 EDT -> 01:00 EST (01:30 twice)
    spring = next_times("30 2 * * *", "America/New_York", after=utc(2026, 3, 7, 12), count=3)
    assert spring == [utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 6, 30), utc(2026, 3, 10, 6, 30)]
    fall = next_times("30 1 * * *", "America/New_York", after=utc(2026, 10, 31, 12), count=3)
    assert fall == [utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30), utc(2026, 11, 3, 6, 30)]


def test_next_time_hourly_follows_real_hours_across_fall_back() -> None:
    # * in the hour: both 02:00s run, as every real hour does
    times = next_times("0 * * * *", "Europe/Berlin", after=utc(2026, 10, 24, 22, 30), count=5)
    assert times == [utc(2026, 10, 24, 23), *(utc(2026, 10, 25, h) for h in range(4))]


def test_describe_says_the_common_expressions_in_words() -> None:
    assert describe("0 * * * *") == "every hour, on the hour"
    assert describe("*/15 * * * *") == "every 15 minutes"
    assert describe("30 2 * * *") == "every day at 02:30"
    assert describe("0 6,18 * * *") == "every day at 06:00 and 18:00"
    assert describe("0 9 * * 1-5") == "at 09:00 on weekdays (Monday to Friday)"
    assert describe("0 3 1 * *") == "at 03:00 on the 1st of every month"
    assert describe("@daily") == "every day at 00:00"
    assert describe("1-5 * * * *") == ""  # shown as it is
    assert describe("nonsense") == ""
