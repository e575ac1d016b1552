"""The audit's example files (examples/audit/, docs/audit.md "Beyond one machine", issue 37): they parse, their shard
arithmetic covers 1..N once, and the flags they pass are the audit's own."""

from __future__ import annotations

import re

import pytest

from ortcopy_doctor.collect.manifest import read_targets
from render_helpers import REPO

EXAMPLES = REPO / "examples" / "audit"
yaml = pytest.importorskip("yaml")
FLAGS = {"--shard", "--out", "--resume", "--baseline", "--sarif"}


def _flags(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))


def test_the_example_manifest_reads_into_rows():
    rows = read_targets([str(EXAMPLES / "zoo.toml")])
    assert [r.id for r in rows] == ["demo", "demo-static[batch=1]", "demo-static[batch=64]"]
    assert [r.measure for r in rows] == [True, False, False]


def test_the_kubernetes_job_gives_each_completion_index_one_shard():
    job = yaml.safe_load((EXAMPLES / "k8s-indexed-job.yaml").read_text(encoding="utf-8"))
    spec = job["spec"]
    (container,) = spec["template"]["spec"]["containers"]
    command = " ".join(container["args"])
    assert (spec["completionMode"], spec["completions"]) == ("Indexed", 4)
    assert '--shard "$((JOB_COMPLETION_INDEX + 1))/4"' in command
    assert container["resources"]["limits"]["nvidia.com/gpu"] == 1
    assert _flags(command) <= FLAGS


def test_the_slurm_array_gives_each_task_one_shard():
    text = (EXAMPLES / "slurm-array.sbatch").read_text(encoding="utf-8")
    assert "#SBATCH --array=0-3" in text and "SHARDS=4" in text
    assert 'SHARD=$((SLURM_ARRAY_TASK_ID + 1))' in text
    command = next(line for line in text.splitlines() if line.startswith("ortcopy-doctor audit"))
    assert _flags(command) <= FLAGS


def test_the_ci_matrix_runs_each_shard_and_merges_them():
    workflow = yaml.safe_load((EXAMPLES / "github-matrix.yml").read_text(encoding="utf-8"))
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    assert shard["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    runs = [step["run"] for step in shard["steps"] if "run" in step]
    assert any("--shard ${{ matrix.shard }}/4" in r for r in runs)
    merged = next(step["run"] for step in merge["steps"] if "audit merge" in step.get("run", ""))
    assert _flags(merged) <= FLAGS and merge["needs"] == "shard"
