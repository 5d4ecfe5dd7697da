"""No module of otterweb or engine imports, even inside a function, a module that imports it
back. The one exception: the registry discovers the built-in operations and functions, which
register themselves with it. otterweb reaches the engine through the names of ``engine`` alone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("otterweb", "engine")
DISCOVERY = ("engine.operations", "engine.functions")  # what engine.registry imports to load


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``packages`` (a package by its
    __init__.py)."""
    modules = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` that ``module`` imports anywhere in its file (at the top, in
    functions, under TYPE_CHECKING); ``from package import name`` imports the module
    package.name when there is one, else the package."""

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(known(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = imported_from(node, module, path)
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in modules else known(source))
    found.discard(None)
    found.discard(module)
    return found


def imported_from(node: ast.ImportFrom, module: str, path: Path) -> str:
    """The module ``from ... import`` reads in ``module`` (its file ``path``), relative
    imports resolved."""
    source = node.module or ""
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        base = package[: len(package) - node.level + 1]
        source = ".".join([*base, source] if source else base)
    return source


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    modules = module_files(root, packages)
    return {module: imported(module, path, modules) for module, path in modules.items()}


def without_discovery(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph without the registry's imports of the modules it discovers."""
    discovered = {
        module
        for module in graph
        if module in DISCOVERY or module.startswith(tuple(f"{p}." for p in DISCOVERY))
    }
    return {
        module: targets - discovered if module == "engine.registry" else targets
        for module, targets in graph.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each group of modules that import one another, directly or not (a strongly connected
    component of two or more), as one cycle through them: [a, b, ..., a]."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [_cycle_through(group, graph) for group in groups]


def _cycle_through(group: set[str], graph: dict[str, set[str]]) -> list[str]:
    """The shortest import path from the group's first module back to it."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        module = queue.pop(0)
        for target in sorted(graph[module] & group):
            if target == start:
                return [*paths[module], start]
            if target not in paths:
                paths[target] = [*paths[module], target]
                queue.append(target)
    raise AssertionError(f"no cycle through {sorted(group)}")


def cycles_in(package: str) -> list[str]:
    graph = without_discovery(import_graph(ROOT, PACKAGES))
    return [" -> ".join(cycle) for cycle in cycles(graph) if cycle[0].split(".")[0] == package]


@pytest.mark.parametrize("package", PACKAGES)
def test_import_graph_has_no_cycle_in(package: str) -> None:
    assert cycles_in(package) == []


def test_import_graph_of_otterweb_reaches_no_engine_module_but_engine() -> None:
    graph = import_graph(ROOT, PACKAGES)
    reached = {
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == "otterweb"
        for target in targets
        if target.startswith("engine.")
    }
    assert reached == set()


def test_import_graph_of_otterweb_takes_from_engine_only_its_exported_names() -> None:
    taken = {
        alias.name
        for path in module_files(ROOT, ("otterweb",)).values()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        if isinstance(node, ast.ImportFrom) and node.module == "engine" and not node.level
        for alias in node.names
    }
    assert taken - set(engine.__all__) == set()


def test_import_graph_finds_imports_inside_functions_and_relative_ones(tmp_path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from pkg.sub import b\n",
        "sub/__init__.py": "from . import b\n",
        "sub/b.py": "def later():\n    from ..c import thing\n",
        "c.py": "import pkg.a\nthing = 1\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    graph = import_graph(tmp_path, ("pkg",))
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.sub.b"},
        "pkg.sub": {"pkg.sub.b"},
        "pkg.sub.b": {"pkg.c"},
        "pkg.c": {"pkg.a"},
    }
    assert cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]]
