"""``deepresearch backends``: the search backends and export formats there are, from their
registries (a module that registers one is listed with no edit here)."""

from __future__ import annotations

import sys


def backends_command() -> None:
    """List the search backends (SEARCH_API) with what each needs, and the export formats (--format)."""
    from deepresearch.export import FORMATS
    from deepresearch.search.registry import BACKENDS

    lines = ["Search backends (SEARCH_API, --search):"]
    for spec in BACKENDS:
        needs = f" [needs {', '.join(name.upper() for name in spec.needs)}]" if spec.needs else ""
        lines.append(f"  {spec.name:<12} {spec.summary or spec.label}{needs}")
    lines.append("Export formats (--format, --out's suffix):")
    for fmt in FORMATS:
        lines.append(f"  {fmt.name:<12} {fmt.label} ({', '.join(fmt.suffixes)})")
    sys.stdout.write("\n".join(lines) + "\n")
