"""``deepresearch settings`` and ``docs/SETTINGS.md``, written from the Settings model alone.

Names, types, defaults, descriptions (each field's docstring) and groups (each field's
``json_schema_extra``) all come from :class:`~deepresearch.settings.Settings`, so nothing here can
drift from it; a test fails when a setting has no description or group. Regenerate the page with
``deepresearch settings --markdown > docs/SETTINGS.md``.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic.fields import FieldInfo

from deepresearch.settings import SECRET_FIELDS, Settings, mask_secret


def groups() -> dict[str, list[str]]:
    """Setting names by group, groups and names in the model's order (a field without a group is
    left out; :func:`undocumented` names it)."""
    grouped: dict[str, list[str]] = {}
    for name, field in Settings.model_fields.items():
        group = _group(field)
        if group is not None:
            grouped.setdefault(group, []).append(name)
    return grouped


def description(name: str) -> str:
    """The setting's description (its docstring in :class:`Settings`) on one line."""
    return " ".join((Settings.model_fields[name].description or "").split())


def undocumented() -> list[str]:
    """Settings with no description or no group (a test keeps this empty)."""
    fields = Settings.model_fields
    return sorted(name for name, field in fields.items() if not description(name) or _group(field) is None)


def _group(field: FieldInfo) -> str | None:
    extra = field.json_schema_extra
    group = extra.get("group") if isinstance(extra, dict) else None
    return group if isinstance(group, str) else None


def settings_markdown() -> str:
    """The whole ``docs/SETTINGS.md`` page."""
    lines = [
        "# Settings",
        "",
        "Every setting is an environment variable (or a line in `.env`, or a keyword override in",
        "Python: `research(question, max_web_research_loops=2)`). Overrides win over the environment,",
        "which wins over `.env`; unknown override names are an error. Secrets are shown masked.",
        "",
        "Generated from the `Settings` model by `deepresearch settings --markdown`; do not edit by hand.",
    ]
    for group, names in groups().items():
        lines += ["", f"## {group}", "", "| variable | type | default | what it does |", "| --- " * 4 + "|"]
        lines += [_row(name, Settings.model_fields[name]) for name in names]
    return "\n".join(lines) + "\n"


def settings_text(settings: Settings) -> str:
    """The settings in force, as ``.env`` lines under their descriptions; secrets masked."""
    lines: list[str] = []
    for group, names in groups().items():
        lines += [f"# --- {group} ---"]
        for name in names:
            lines += [f"# {description(name)}", f"{name.upper()}={_current(settings, name)}"]
        lines.append("")
    return "\n".join(lines)


def _current(settings: Settings, name: str) -> str:
    value = getattr(settings, name)
    if name in SECRET_FIELDS:
        return mask_secret(value) or ""
    if value is None:
        return ""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _row(name: str, field: FieldInfo) -> str:
    return f"| `{name.upper()}` | {_type(field.annotation)} | {_default(field)} | {description(name)} |"


def _default(field: FieldInfo) -> str:
    value = field.default
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`" if str(value) != "" else '`""`'


def _type(annotation: Any) -> str:
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) is Literal:
        return " \\| ".join(f"`{a}`" for a in get_args(annotation))
    if get_origin(annotation) in (Union, types.UnionType):
        return _type(args[0]) if len(args) == 1 else " \\| ".join(_type(a) for a in args)
    names = {"SecretStr": "secret", "Path": "path", "str": "text", "bool": "bool"}
    name = getattr(annotation, "__name__", str(annotation))
    return names.get(name, name)
