"""Cron expressions and time zones of schedules: checked, the next time they name, and a few
words for the common ones. croniter reads every expression; nothing here parses cron itself.

Times are the schedule's wall-clock times in its time zone (zoneinfo), turned into UTC
instants. Across daylight saving time, as Vixie cron does: a time skipped when the clocks go
forward runs at the moment they jump (02:30 in Europe/Berlin on the last Sunday of March runs
at 03:00 CEST); a time repeated when they go back runs once, the first time, unless the
expression has * for its minute or hour, whose runs follow the real hours (an hourly schedule
runs in both 02:00 hours)."""

from __future__ import annotations

import calendar
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo, available_timezones

from croniter import croniter
from django.core.exceptions import ValidationError

MACROS = ("@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly")
# past this many candidates, an expression names no time at all (February 30th)
MAX_CANDIDATES = 1000


@lru_cache(maxsize=1)
def time_zones() -> tuple[str, ...]:
    """Every zoneinfo name, UTC first, then in alphabetical order."""
    names = available_timezones() - {"UTC", "localtime", "Factory"}
    return ("UTC", *sorted(names))


def validate_time_zone(name: str) -> None:
    if name not in set(time_zones()):
        raise ValidationError(
            f"Expected a time zone name such as UTC, Europe/Berlin or America/New_York, "
            f"found {name!r}.",
            code="time_zone",
        )


def validate_cron(expression: str) -> None:
    """Five fields (minute, hour, day of the month, month, day of the week) or a macro such as
    @daily, as croniter reads them; seconds and years are refused (the scheduler looks every
    few seconds, not every second)."""
    text = " ".join(str(expression).split())
    fields = text.split(" ")
    if text.startswith("@"):
        valid = text.lower() in MACROS
    else:
        valid = len(fields) == 5 and croniter.is_valid(text)
    if not valid:
        raise ValidationError(
            "Expected a cron expression of five fields: minute, hour, day of the month, month, "
            f"day of the week (such as 0 * * * * or 30 2 * * 1-5), or {', '.join(MACROS)}; "
            f"found {expression!r}.",
            code="cron",
        )
    try:
        next_time(text, "UTC", after=datetime(2000, 1, 1, tzinfo=UTC))
    except ValidationError:
        raise
    except Exception:  # croniter's own refusals of what is_valid let through
        raise ValidationError(f"{expression!r} names no time.", code="cron") from None


def normalized(expression: str) -> str:
    """The expression with single spaces (and a macro in lower case)."""
    text = " ".join(str(expression).split())
    return text.lower() if text.startswith("@") else text


def next_time(expression: str, time_zone: str, *, after: datetime) -> datetime:
    """The first time ``expression`` names in ``time_zone`` strictly after ``after`` (an aware
    datetime), as an aware UTC datetime."""
    zone = ZoneInfo(time_zone)
    times = croniter(normalized(expression), after.astimezone(zone))
    fixed = _at_fixed_times(times)
    for _ in range(MAX_CANDIDATES):
        candidate = times.get_next(datetime)
        instant = candidate.astimezone(UTC)
        if instant <= after:
            continue
        if fixed and _repeated(candidate, zone):
            continue
        return instant
    raise ValidationError(f"{expression!r} names no time.", code="cron")


def next_times(expression: str, time_zone: str, *, after: datetime, count: int) -> list[datetime]:
    """The next ``count`` times, each as next_time gives it."""
    times = []
    for _ in range(count):
        after = next_time(expression, time_zone, after=after)
        times.append(after)
    return times


def _at_fixed_times(times: croniter) -> bool:
    """Whether the expression runs at particular times: neither its minute nor its hour is *."""
    minutes, hours = times.expanded[0], times.expanded[1]
    return minutes != ["*"] and hours != ["*"]


def _repeated(local: datetime, zone: ZoneInfo) -> bool:
    """Whether ``local`` is the second of two moments with the same wall-clock time (the hour
    the clocks go back)."""
    wall = local.replace(tzinfo=None)
    first = wall.replace(tzinfo=zone, fold=0).utcoffset()
    second = wall.replace(tzinfo=zone, fold=1).utcoffset()
    return first != second and local.utcoffset() == second


# ---- in words

# cron counts the days of the week from Sunday (0 or 7), calendar from Monday
DAYS = [calendar.day_name[(day - 1) % 7] for day in range(7)]
MONTHS = list(calendar.month_name)  # MONTHS[1] is January
MACRO_WORDS = {
    "@yearly": "every year on 1 January at 00:00",
    "@annually": "every year on 1 January at 00:00",
    "@monthly": "on the 1st of every month at 00:00",
    "@weekly": "every Sunday at 00:00",
    "@daily": "every day at 00:00",
    "@midnight": "every day at 00:00",
    "@hourly": "every hour, on the hour",
}


def describe(expression: str) -> str:
    """The common expressions in words ("every day at 02:30", "every 15 minutes"); "" for the
    others, which are shown as they are."""
    text = normalized(expression)
    if text in MACRO_WORDS:
        return MACRO_WORDS[text]
    try:
        minutes, hours, days, months, weekdays = croniter(text).expanded[:5]
    except Exception:
        return ""
    when = _time_of_day(minutes, hours)
    if not when:
        return ""
    on = _days(days, months, weekdays)
    if on is None:
        return ""
    if not on and when.startswith("at "):
        return f"every day {when}"
    return f"{when}{on}"


def _time_of_day(minutes: list, hours: list) -> str:
    if minutes == ["*"] and hours == ["*"]:
        return "every minute"
    if hours == ["*"]:
        step = _step(minutes, 60)
        if step:
            return f"every {step} minutes"
        if len(minutes) == 1:
            return (
                "every hour, on the hour" if minutes[0] == 0 else f"every hour at :{minutes[0]:02}"
            )
        return ""
    if minutes == ["*"] or len(hours) > 6 or len(minutes) > 2:
        return ""
    times = sorted(f"{hour:02}:{minute:02}" for hour in hours for minute in minutes)
    return "at " + _join(times)


def _step(values: list, size: int) -> int | None:
    """N when the values are 0, N, 2N ... up to ``size``."""
    if len(values) < 2 or values[0] != 0:
        return None
    step = values[1]
    return step if values == list(range(0, size, step)) else None


def _days(days: list, months: list, weekdays: list) -> str | None:
    if months != ["*"]:
        if days == ["*"] or weekdays != ["*"]:
            return None
        return f" on {_join([str(d) for d in days])} {_join([MONTHS[m] for m in months])}"
    if days == ["*"] and weekdays == ["*"]:
        return ""
    if days != ["*"] and weekdays == ["*"]:
        ordinal = [_ordinal(d) for d in days if isinstance(d, int)]
        if len(ordinal) != len(days):
            return None
        return f" on the {_join(ordinal)} of every month"
    if days == ["*"]:
        named = sorted({int(day) % 7 for day in weekdays if isinstance(day, int)})
        if len(named) != len(weekdays):
            return None
        if named == [1, 2, 3, 4, 5]:
            return " on weekdays (Monday to Friday)"
        if named == [0, 6]:
            return " at weekends"
        return " on " + _join([DAYS[day] + "s" for day in named])
    return None


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
