"""knowledge.installed: a distribution's name and version from the ``.dist-info`` folder beside its package."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ortcopy_doctor.knowledge.installed import distribution_beside, distribution_version, package_folders


def _package(folder: Path, name: str) -> None:
    (folder / name).mkdir()
    (folder / name / "__init__.py").write_text("raise RuntimeError('imported')\n", encoding="utf-8")


def _dist_info(folder: Path, dirname: str, metadata: str) -> None:
    (folder / dirname).mkdir()
    (folder / dirname / "METADATA").write_text(metadata, encoding="utf-8")


def test_the_first_distribution_found_beside_the_package_gives_its_version(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch):
    _package(tmp_path, "fakepkg")
    _dist_info(tmp_path, "fake_pkg-2.5.dev1.dist-info", "Metadata-Version: 2.1\nName: fake-pkg\nVersion: 2.5.dev1\n"
                                                        "\nVersion: 9\n")
    _dist_info(tmp_path, "Fake.Pkg.GPU-3.0.dist-info", "Name: fake-pkg-gpu\nVersion: 3.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert distribution_beside("fakepkg", ("other", "fake-pkg")) == ("fake-pkg", "2.5.dev1")
    assert distribution_beside("fakepkg", ("fake-pkg-gpu", "fake-pkg")) == ("fake-pkg-gpu", "3.0")
    assert "fakepkg" not in sys.modules  # found, not imported


def test_a_metadata_without_a_version_header_gives_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _package(tmp_path, "fakepkg3")
    _dist_info(tmp_path, "fakepkg3-1.0.dist-info", "Name: fakepkg3\n\nVersion: 1.0\n")  # in the body, not a header
    monkeypatch.syspath_prepend(str(tmp_path))
    assert distribution_beside("fakepkg3", ("fakepkg3",)) is None


def test_without_a_dist_info_beside_the_package_there_is_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _package(tmp_path, "fakepkg2")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert distribution_beside("fakepkg2", ("fakepkg2",)) is None
    assert distribution_beside("no_such_package_here", ("no-such-package-here",)) is None


def test_the_installed_onnx_and_onnxruntime_read_as_importlib_metadata_reads_them():
    import importlib.metadata

    name, version = distribution_beside("onnx", ("onnx",)) or ("", "")
    assert (name, version) == ("onnx", importlib.metadata.version("onnx"))
    name, version = distribution_beside("onnxruntime", ("onnxruntime-gpu", "onnxruntime")) or ("", "")
    assert version == importlib.metadata.version(name)


def test_two_folders_of_one_distribution_give_what_importlib_metadata_gives(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    # a stale .dist-info left beside the current one (a broken upgrade): the first in the folder's listing, as
    # importlib.metadata (which onnx's own __version__ reads) takes it
    import importlib
    import importlib.metadata

    _package(tmp_path, "dupepkg")
    _dist_info(tmp_path, "dupepkg-1.0.dist-info", "Name: dupepkg\nVersion: 1.0\n")
    _dist_info(tmp_path, "dupepkg-2.0.DIST-INFO", "Name: dupepkg\nVersion: 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert distribution_beside("dupepkg", ("dupepkg",)) == ("dupepkg", importlib.metadata.version("dupepkg"))


def test_a_distribution_not_beside_its_package_is_asked_of_importlib_metadata(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch):
    # an editable install: the package in one folder, its .dist-info in another on the path
    import importlib

    (tmp_path / "src").mkdir()
    (tmp_path / "site").mkdir()
    _package(tmp_path / "src", "fakepkg4")
    _dist_info(tmp_path / "site", "fakepkg4-7.0.dist-info", "Name: fakepkg4\nVersion: 7.0\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    importlib.invalidate_caches()
    assert package_folders("fakepkg4") == [str(tmp_path / "src" / "fakepkg4")]
    assert distribution_beside("fakepkg4", ("fakepkg4",)) is None
    assert distribution_version("fakepkg4", ("other-dist", "fakepkg4")) == ("fakepkg4", "7.0")
    assert distribution_version("fakepkg4", ("other-dist",)) is None
    assert "fakepkg4" not in sys.modules
