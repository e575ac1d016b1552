"""collect/procmaps.py: the files mapped into the process, read from a memory map like Linux writes it."""

from __future__ import annotations

from ortcopy_doctor.collect.procmaps import first_library, mapped_files

MAP = """\
55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 /usr/bin/python3.11
7f0000000000-7f0000001000 r-xp 00000000 08:01 42 /opt/lib dir/libcudart.so.13.0.48
7f0000001000-7f0000002000 rw-p 00000000 00:00 0
7f0000002000-7f0000003000 r-xp 00000000 08:01 43 /usr/lib/x86_64-linux-gnu/libcuda.so.580.65
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]
"""


def test_the_paths_are_the_sixth_field_with_their_spaces(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(MAP)
    assert mapped_files(maps) == ["/usr/bin/python3.11", "/opt/lib dir/libcudart.so.13.0.48",
                                  "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65", "[stack]"]


def test_a_library_is_found_by_the_start_of_its_file_name(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text(MAP)
    assert first_library("libcudart.so", maps) == "/opt/lib dir/libcudart.so.13.0.48"
    assert first_library("libcuda.so", maps) == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65"
    assert first_library("libcublas.so", maps) is None


def test_an_unreadable_map_is_none(tmp_path):
    assert mapped_files(tmp_path / "missing") is None
    assert first_library("libcudart.so", tmp_path / "missing") is None


def test_this_process_maps_its_python(tmp_path):
    files = mapped_files()
    assert files is not None and any("python" in path for path in files)
