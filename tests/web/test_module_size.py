"""No module of engine or otterweb grows past 700 lines (Django's generated migrations aside):
a module that long holds more than one bundle of state, and is split by them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 700


def oversized(root: Path) -> dict[str, int]:
    """The modules under ``root``'s engine and otterweb over LIMIT lines, with their lengths."""
    found = {}
    for package in ("engine", "otterweb"):
        for path in (root / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > LIMIT:
                found[str(path.relative_to(root))] = lines
    return found


def test_module_size_is_at_most_700_lines() -> None:
    assert oversized(ROOT) == {}


def test_module_size_finds_a_long_module_and_skips_migrations(tmp_path) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "long.py").write_text("x = 1\n" * (LIMIT + 1))
    (tmp_path / "engine" / "short.py").write_text("x = 1\n" * LIMIT)
    (tmp_path / "otterweb" / "app" / "migrations").mkdir(parents=True)
    (tmp_path / "otterweb" / "app" / "migrations" / "0001_initial.py").write_text("x = 1\n" * 2000)
    assert oversized(tmp_path) == {"engine/long.py": LIMIT + 1}
