"""One readiness check's result: what was checked, whether it holds, and how to fix it."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)
