"""No import cycle between the packages of deepresearch (``scripts/import_cycles.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_cycles", ROOT / "scripts" / "import_cycles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_packages_import_one_another_without_a_cycle() -> None:
    script = _script()
    graph = script.package_graph(ROOT / "src" / "deepresearch")
    assert {"llm", "search", "jobs", "server"} <= set(graph)
    assert script.cycles(graph) == []


def test_a_cycle_is_found_and_named() -> None:
    script = _script()
    graph = {"llm": {"jobs"}, "jobs": {"llm", "settings"}, "settings": set()}
    assert script.cycles(graph) == [["jobs", "llm"]]
