"""Print the import cycles between the packages of deepresearch.

A node is a subpackage (``deepresearch.llm``) or a top-level module
(``deepresearch.doctor``); an edge is any import, at module level or inside a
function, from one node to another. Exits 1 when there is a cycle.

    python scripts/import_cycles.py [src/deepresearch]
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = "deepresearch"


def node_of(dotted: str) -> str | None:
    """The package-level node a dotted module name belongs to."""
    parts = dotted.split(".")
    if parts[0] != ROOT or len(parts) < 2:
        return None
    return parts[1]


def module_name(path: Path, src: Path) -> str:
    rel = path.relative_to(src.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(tree: ast.AST, module: str, is_package: bool) -> Iterator[str]:
    """Every absolute module name that ``tree`` imports, relative ones resolved."""
    for item in ast.walk(tree):
        if isinstance(item, ast.Import):
            yield from (alias.name for alias in item.names)
        elif isinstance(item, ast.ImportFrom):
            base = item.module or ""
            if item.level:
                parent = module.split(".")
                drop = item.level - 1 if is_package else item.level
                parent = parent[: len(parent) - drop]
                base = ".".join([*parent, base] if base else parent)
            yield base
            yield from (f"{base}.{alias.name}" for alias in item.names)


def package_graph(src: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(src.rglob("*.py")):
        module = module_name(path, src)
        here = node_of(module)
        if here is None:
            continue
        edges = graph.setdefault(here, set())
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name in imported(tree, module, path.name == "__init__.py"):
            there = node_of(name)
            if there is not None and there != here and _exists(src, there):
                edges.add(there)
    return graph


def _exists(src: Path, node: str) -> bool:
    """Whether ``node`` is a subpackage or module (not a name imported from the package)."""
    return (src / node).is_dir() or (src / f"{node}.py").exists()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def main(argv: list[str]) -> int:
    src = Path(argv[1] if len(argv) > 1 else Path(__file__).parent.parent / "src" / ROOT)
    graph = package_graph(src)
    found = cycles(graph)
    for component in found:
        members = set(component)
        edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a] & members)]
        print(f"cycle: {', '.join(component)}\n  " + "\n  ".join(edges))
    if not found:
        print(f"no import cycles between {len(graph)} packages")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
