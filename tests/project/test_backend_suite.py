"""``check`` over the ONNX backend node test suite (the onnx 1.22.0 wheel's single-op models).

Rule (issue 7): no traceback, no hang, every model either reported (exit 0/1 with a JSON report) or
refused with a one-line reason (exit 2/3). With the default providers (CUDA requested, CPU fallback) on a
machine where CUDA does not load, a reported model must carry the ep-not-active finding and exit 1.

* ``test_chosen_models``: always runs: 15 models with sequence, optional, string, bool, float16,
  bfloat16, float8 inputs or outputs and If/Loop/Scan subgraphs, with both providers.
* ``test_suite_sample``: by default (``make test``), a deterministic stratified sample, one model per op type
  (``backend_suite.stratified_sample``: about 200 models that together hold every op type of the suite), both
  providers: a few minutes on 2 CPUs. ``test_sample_covers_every_op_type`` checks that it does.
* ``test_full_suite``: all 1,765 models, both providers (~18 min on 2 CPUs), only where
  ``ORTCOPY_BACKEND_SUITE=full`` (``make test-full`` and CI, with progress lines every 50 models under ``-s``).
  ``python tools/backend_suite.py tally [--stratified]`` prints the same tally by hand (docs/robustness.md has it).

The wheel (19 MB) is fetched once with pip into ~/.cache/ortcopy-doctor (ORTCOPY_BACKEND_CACHE moves it);
without network access and without a cache the tests are skipped.
"""

from __future__ import annotations

import os
import sys

import pytest

from render_helpers import REPO

sys.path.insert(0, str(REPO / "tools"))

import backend_suite  # noqa: E402

# name -> what it exercises; True where check must report it (the others may be refused, with a reason,
# because check cannot feed or return the value: sequence inputs, float8/bfloat16 through numpy, empty optional)
CHOSEN = {
    "test_abs": True,
    "test_and2d": True,  # bool
    "test_cast_FLOAT_to_FLOAT16": True,  # float16 output
    "test_cast_FLOAT_to_BFLOAT16": False,  # bfloat16 output: numpy cannot hold it
    "test_castlike_FLOAT_to_FLOAT8E4M3FN": False,  # float8 input: cannot be synthesized or stored in .npz
    "test_equal_string": True,  # string inputs
    "test_regex_full_match_basic": True,  # string in, bool out
    "test_if_seq": True,  # If with a sequence output
    "test_loop13_seq": False,  # Loop over a sequence input
    "test_scan9_sum": True,  # Scan
    "test_sequence_insert_at_back": False,  # sequence input
    "test_split_to_sequence_1": True,  # sequence output
    "test_optional_get_element_sequence": False,  # optional sequence input
    "test_optional_has_element_empty_optional_input": False,  # an empty optional
    "test_nonzero_example": True,  # data-dependent output shape
}


@pytest.fixture(scope="module")
def node_models() -> list[backend_suite.NodeModel]:
    try:
        return list(backend_suite.iter_node_models())
    except (SystemExit, OSError) as exc:  # no network and no cache
        pytest.skip(f"ONNX backend node tests unavailable: {exc}")


def _assert_clean(t: backend_suite.Tally) -> None:
    bad = [o for o in t.outcomes if o.kind in ("traceback", "hang")]
    assert not bad, "\n\n".join(f"{o.name}: {o.kind} (exit {o.exit_code}) {o.reason}\n{o.detail}" for o in bad)
    for o in t.outcomes:
        assert o.kind in ("reported", "refused"), o
        if o.kind == "refused":
            assert o.exit_code in (2, 3) and o.reason.startswith("error: ") and "internal error" not in o.reason, o
        if t.provider != "cpu" and o.kind == "reported":
            # CUDA requested but inactive here: the finding, and --fail-on error turns it into exit 1
            assert "ep-not-active" in o.reason.split(","), o
            assert o.exit_code == 1, o


def _cuda_inactive() -> bool:
    from ortcopy_doctor.collect.environment import provider_loadable

    return not provider_loadable("CUDAExecutionProvider").loadable


@pytest.mark.parametrize("provider", ["cpu", "default"])
def test_chosen_models(node_models, provider):
    if provider == "default" and not _cuda_inactive():
        pytest.skip("CUDA loads here: the ep-not-active expectation is for machines without a GPU")
    chosen = backend_suite.select(node_models, names=list(CHOSEN))
    assert [m.name for m in chosen] == sorted(CHOSEN)
    t = backend_suite.tally(chosen, provider, jobs=2, timeout=120,
                            fail_on="never" if provider == "cpu" else "error")
    _assert_clean(t)
    if _older_onnxruntime():
        return
    kinds = {o.name: o.kind for o in t.outcomes}
    must = {name for name, reported in CHOSEN.items() if reported}
    assert {n for n in must if kinds[n] != "reported"} == set(), backend_suite.to_markdown(t)


FULL = os.environ.get("ORTCOPY_BACKEND_SUITE") == "full"


@pytest.fixture(scope="module")
def sample(node_models) -> list[backend_suite.NodeModel]:
    return backend_suite.stratified_sample(node_models)


def test_sample_covers_every_op_type(node_models, sample):
    every_op = set().union(*(backend_suite.op_types(m) for m in node_models))
    assert set().union(*(backend_suite.op_types(m) for m in sample)) == every_op
    assert len(every_op) == 202 and len(sample) == 196


def test_sample_is_deterministic(node_models, sample):
    assert [m.name for m in backend_suite.stratified_sample(list(reversed(node_models)))] == [m.name for m in sample]


@pytest.mark.slow
@pytest.mark.skipif(FULL, reason="the full suite runs instead (ORTCOPY_BACKEND_SUITE=full)")
@pytest.mark.parametrize("provider", ["cpu", "default"])
def test_suite_sample(sample, provider):
    """One model per op type (196 models, 202 op types), both providers: a few minutes."""
    _suite(sample, provider, minimum=196)


@pytest.mark.skipif(not FULL, reason="set ORTCOPY_BACKEND_SUITE=full to check all 1,765 models (`make test-full`)")
@pytest.mark.parametrize("provider", ["cpu", "default"])
def test_full_suite(node_models, provider):
    """All 1,765 models: about 8-10 min per provider on 2 CPUs (docs/robustness.md)."""
    _suite(node_models, provider, minimum=1765, progress=True)


def _suite(models: list[backend_suite.NodeModel], provider: str, minimum: int, progress: bool = False) -> None:
    if provider == "default" and not _cuda_inactive():
        pytest.skip("CUDA loads here: the ep-not-active expectation is for machines without a GPU")
    assert len(models) >= minimum
    t = backend_suite.tally(models, provider, jobs=2, timeout=120,
                            fail_on="never" if provider == "cpu" else "error", progress=progress)
    _assert_clean(t)
    if _older_onnxruntime():
        return
    # the tally of this file's docs: 1,461 of 1,765 reported, the rest refused with a reason
    assert t.counts.get("reported", 0) >= 0.75 * len(models), backend_suite.to_markdown(t)


def _older_onnxruntime() -> bool:
    """Whether the installed onnxruntime predates the one the tally was recorded with (1.31.1). onnxruntime-gpu
    1.20.2 refused 65 of the 196 sampled models for opsets (42) and IR versions (23) newer than it loads, each
    with its one line: the rule (no traceback, a reason for every refusal) holds there, the share reported does not."""
    import onnxruntime as ort

    from ortcopy_doctor.knowledge.ort_versions import parse_version

    version = parse_version(ort.__version__)
    return version is not None and version < (1, 31)


def test_two_processes_extracting_at_once_both_get_the_models(tmp_path):
    """pytest-xdist workers ask for the node models at the same time on a fresh cache: a lock file serialises the
    extraction, so neither sees a half-extracted or removed folder."""
    wheel = backend_suite.find_wheel(backend_suite.DEFAULT_CACHE)
    if wheel is None:
        pytest.skip("the onnx wheel is not in the cache (the other tests of this file fetch it)")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / wheel.name).symlink_to(wheel)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import backend_suite, pathlib; "
            "root = backend_suite.node_root(pathlib.Path(sys.argv[2])); "
            "print(sum(1 for p in root.iterdir() if (p / 'model.onnx').is_file()))")
    import subprocess

    procs = [subprocess.Popen([sys.executable, "-c", code, str(REPO / "tools"), str(cache)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert [(out.strip(), code) for out, _, code in results] == [("1765", 0), ("1765", 0)], results
