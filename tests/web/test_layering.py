"""Calls go one way: every module of otterweb belongs to one place in ORDER, and no module
imports, even inside a function, a module of a place above its own. A place may import its own
modules and those of any place below it.

The order, from the bottom:
- the project's own helpers, which every app may use (model fields, secrets at rest, the data
  folder, the static files' storage, the housekeeper's rounds, the metrics every process adds
  to, the API's error body and its base classes);
- privileges, which every app asks (``may``, ``visible``);
- accounts (users, groups, API keys, logins), then the audit trail, which every write tells;
- the apps, each above the ones whose models it points at: the execution logs (they name an
  execution by its id alone), rafts, inventory (a role's configuration is a raft item),
  executions (a job runs a raft item on inventory's servers; its log is the execution logs'),
  schedules (they start job templates), configuration (its checks are executions, its routine
  checks schedules), the editor (it reads rafts, inventory and the engine host);
- the wiring above them all: settings, URLs, ASGI and websocket routing, Celery, the home page,
  health and metrics (they read several apps' models), the project's commands.

An app adds what the ones below it must run or know (a round of the housekeeper, what a schedule
of its kind starts, who may see an execution's log) from its AppConfig.ready, as a callable it
hands down."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.web.test_import_graph import imported_from

ROOT = Path(__file__).resolve().parents[2]

ORDER: tuple[tuple[str, ...], ...] = (
    (
        "otterweb.fields",
        "otterweb.names",
        "otterweb.addresses",
        "otterweb.parse_errors",
        "otterweb.datafolder",
        "otterweb.static_storage",
        "otterweb.secrets",
        "otterweb.housekeeping",
        "otterweb.metrics",
        "otterweb.logs",
        "otterweb.sqlite3",
        "otterweb.templatetags",
        "otterweb.admin",
        "otterweb.api.error_body",
        "otterweb.api.errors",
        "otterweb.api.bodies",
        "otterweb.api.queries",
        "otterweb.api.schema",
    ),
    ("otterweb.privileges", "otterweb.api.permissions"),
    ("otterweb.accounts", "otterweb.api.throttles"),
    ("otterweb.audit",),
    ("otterweb.execution_logs",),
    ("otterweb.rafts",),
    ("otterweb.inventory",),
    ("otterweb.executions",),
    ("otterweb.schedules",),
    ("otterweb.configuration",),
    ("otterweb.retention",),
    ("otterweb.editor",),
    (
        "otterweb",
        "otterweb.settings",
        "otterweb.apps",
        "otterweb.celery",
        "otterweb.asgi",
        "otterweb.auth",
        "otterweb.routing",
        "otterweb.middleware",
        "otterweb.health",
        "otterweb.navigation",
        "otterweb.urls",
        "otterweb.views",
        "otterweb.api",
        "otterweb.management",
    ),
)


def place_of(module: str, order: tuple[tuple[str, ...], ...] = ORDER) -> tuple[int, str] | None:
    """The level in ``order`` and the name of the place holding ``module``: the longest name
    that is the module or a package around it (the root package holds only itself)."""
    found = None
    for level, names in enumerate(order):
        for name in names:
            inside = module == name or ("." in name and module.startswith(f"{name}."))
            if inside and (found is None or len(name) > len(found[1])):
                found = (level, name)
    return found


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(module: str, path: Path) -> list[tuple[int, str]]:
    """Each (line, module) that the file imports, anywhere in it (at the top, in functions,
    under TYPE_CHECKING); ``from package import name`` counts as package.name, relative
    imports resolved."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = imported_from(node, module, path)
            found += [(node.lineno, f"{source}.{alias.name}") for alias in node.names]
    return found


def wrong_way(root: Path, package: str = "otterweb", order=ORDER) -> dict[tuple[str, str], list]:
    """Every import against ``order`` in ``package`` under ``root``, by file and the place it
    reaches up to: what is wrong, line by line. A module that ``order`` does not place is wrong
    too (its place: "")."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted((root / package).rglob("*.py")):
        module = module_name(path, root)
        file = path.relative_to(root).as_posix()
        here = place_of(module, order)
        if here is None:
            found[(file, "")] = [f"{file}: {module} has no place in the order"]
            continue
        seen = set()  # one problem per line (``from x import a, b``)
        for line, target in imports(module, path):
            there = place_of(target, order) if target.split(".")[0] == package else None
            if there is None or there[0] <= here[0] or line in seen:
                continue
            seen.add(line)
            found.setdefault((file, there[1]), []).append(
                f"{file}:{line} imports {target}: {here[1]} may not import {there[1]}, "
                "which is above it"
            )
    return found


def test_layering_no_import_goes_up_the_order() -> None:
    found = wrong_way(ROOT)
    assert [problem for key in sorted(found) for problem in found[key]] == []


def test_layering_places_every_name_once_and_each_is_there() -> None:
    names = [name for names in ORDER for name in names]
    assert len(names) == len(set(names))
    missing = [
        name
        for name in names
        if not (
            ROOT.joinpath(*name.split(".")).is_dir()
            or ROOT.joinpath(f"{name.replace('.', '/')}.py").is_file()
        )
    ]
    assert missing == []


def test_layering_finds_imports_up_inside_functions_and_relative_ones(tmp_path) -> None:
    package = tmp_path / "pkg"
    (package / "high").mkdir(parents=True)
    (package / "low").mkdir()
    files = {
        "__init__.py": "",
        "base.py": "",
        "high/__init__.py": "from .. import base\n",
        "high/views.py": "from pkg.low import models\n",
        "low/__init__.py": "",
        "low/models.py": "import pkg.base\n\ndef later():\n    from ..high import views\n",
        "low/forms.py": "from pkg import high\n",
        "stray.py": "",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    order = (("pkg", "pkg.base"), ("pkg.low",), ("pkg.high",))
    assert wrong_way(tmp_path, "pkg", order) == {
        ("pkg/low/forms.py", "pkg.high"): [
            "pkg/low/forms.py:1 imports pkg.high: pkg.low may not import pkg.high, which is above it"
        ],
        ("pkg/low/models.py", "pkg.high"): [
            "pkg/low/models.py:4 imports pkg.high.views: pkg.low may not import pkg.high, "
            "which is above it"
        ],
        ("pkg/stray.py", ""): ["pkg/stray.py: pkg.stray has no place in the order"],
    }
