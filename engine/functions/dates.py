"""$Date and $DateUtc: the current time in a .NET date format, as Inedo's functions write it
(the invariant culture: English names, `/` and `:` as separators)."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.registry import function
from engine.values import to_text

DEFAULT_FORMAT = "yyyy-MM-ddTHH:mm:ss"
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# The standard formats (one letter), as the invariant culture spells them out; r, u and U
# also turn the time into UTC.
STANDARD = {
    "d": "MM/dd/yyyy",
    "D": "dddd, dd MMMM yyyy",
    "f": "dddd, dd MMMM yyyy HH:mm",
    "F": "dddd, dd MMMM yyyy HH:mm:ss",
    "g": "MM/dd/yyyy HH:mm",
    "G": "MM/dd/yyyy HH:mm:ss",
    "m": "MMMM dd",
    "M": "MMMM dd",
    "o": "yyyy-MM-ddTHH:mm:ss.fffffffK",
    "O": "yyyy-MM-ddTHH:mm:ss.fffffffK",
    "r": "ddd, dd MMM yyyy HH:mm:ss 'GMT'",
    "R": "ddd, dd MMM yyyy HH:mm:ss 'GMT'",
    "s": "yyyy-MM-ddTHH:mm:ss",
    "t": "HH:mm",
    "T": "HH:mm:ss",
    "u": "yyyy-MM-dd HH:mm:ssZ",
    "U": "dddd, dd MMMM yyyy HH:mm:ss",
    "y": "yyyy MMMM",
    "Y": "yyyy MMMM",
}
IN_UTC = set("rRuU")


def format_date(moment: datetime, pattern: str) -> str:
    """``moment`` (aware) in a .NET standard (one letter) or custom date format."""
    if len(pattern) == 1:
        if pattern not in STANDARD:
            raise ValueError(
                f"'{pattern}' is not a standard date format (one of {''.join(STANDARD)}); "
                f"write %{pattern} for the custom specifier"
            )
        if pattern in IN_UTC:
            moment = moment.astimezone(UTC)
        return _custom(moment, STANDARD[pattern])
    return _custom(moment, pattern)


def _custom(moment: datetime, pattern: str) -> str:
    out: list[str] = []
    position = 0
    while position < len(pattern):
        letter = pattern[position]
        if letter in ("'", '"'):
            closing = pattern.find(letter, position + 1)
            if closing < 0:
                raise ValueError(f"the date format has an unclosed {letter}: '{pattern}'")
            out.append(pattern[position + 1 : closing])
            position = closing + 1
        elif letter in ("\\", "%"):
            if position + 1 == len(pattern):
                raise ValueError(f"the date format ends with {letter}: '{pattern}'")
            following = pattern[position + 1]
            out.append(following if letter == "\\" else _specifier(moment, following, 1, out))
            position += 2
        else:
            count = 1
            while position + count < len(pattern) and pattern[position + count] == letter:
                count += 1
            out.append(_specifier(moment, letter, count, out))
            position += count
    return "".join(out)


def _specifier(moment: datetime, letter: str, count: int, out: list[str]) -> str:
    """One run of a letter (``yyyy``, ``MM``, ``f``) of a custom format; other text as it is."""
    two = min(count, 2)
    if letter == "d":
        return str(moment.day).zfill(two) if count < 3 else _name(DAYS[moment.weekday()], count)
    if letter == "M":
        name = MONTHS[moment.month - 1]
        return str(moment.month).zfill(two) if count < 3 else _name(name, count)
    if letter == "y":
        year = moment.year % 100 if count < 3 else moment.year
        return str(year).zfill(1 if count == 1 else count)
    simple = {"H": moment.hour, "h": moment.hour % 12 or 12, "m": moment.minute, "s": moment.second}
    if letter in simple:
        return str(simple[letter]).zfill(two)
    if letter in "fF":
        if count > 7:
            raise ValueError("a date format shows at most 7 digits of a second (fffffff)")
        digits = f"{moment.microsecond:06d}0"[:count]
        if letter == "F":
            digits = digits.rstrip("0")
            if not digits and out and out[-1].endswith("."):
                out[-1] = out[-1][:-1]
        return digits
    if letter == "t":
        return ("AM" if moment.hour < 12 else "PM")[:two]
    if letter in "zK":
        offset = moment.utcoffset()
        if letter == "K" and moment.tzinfo is UTC:
            return "Z"
        minutes = int(offset.total_seconds() // 60) if offset is not None else 0
        sign, minutes = ("-" if minutes < 0 else "+"), abs(minutes)
        if letter == "z" and count < 3:
            return sign + str(minutes // 60).zfill(count)
        return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"
    if letter == "g":
        return "A.D."
    return letter * count


def _name(name: str, count: int) -> str:
    return name[:3] if count == 3 else name


def _register(name: str, where: str, utc: bool) -> None:
    @function(
        name,
        returns="$",
        params=("format",),
        optional=1,
        description=f"The {where} date and time in a .NET format: custom "
        "(yyyy-MM-dd HH:mm:ss.fff) or standard (s, r, t...); yyyy-MM-ddTHH:mm:ss by default.",
    )
    def now(call, format_text=None):
        moment = datetime.now(UTC) if utc else datetime.now().astimezone()
        pattern = to_text(format_text) if format_text is not None else ""
        return format_date(moment, pattern or DEFAULT_FORMAT)


_register("Date", "local", utc=False)
_register("DateUtc", "UTC", utc=True)
