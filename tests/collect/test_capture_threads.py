"""`check()` from several threads at once: the capture of ORT's log (fd 2 and sys.stdout, both the process's)
is taken by one check at a time, and each gets back what it replaced."""

from __future__ import annotations

import os
import sys
import threading

import onnx

import models
from ortcopy_doctor import check


def test_checks_in_two_threads_give_back_stdout_and_fd_2(tmp_path):
    paths = []
    for name, model in (("conv", models.conv_net()), ("celu", models.cpu_op_between())):
        paths.append(tmp_path / f"{name}.onnx")
        onnx.save(model, str(paths[-1]))
    stdout, fd2 = sys.stdout, os.fstat(2)
    errors: list[BaseException] = []

    def one(path):
        try:
            for _ in range(3):
                check(path, dims={"batch": 2}, providers=["CPUExecutionProvider"], timed_runs=2, warmup_runs=1,
                      profiled_runs=1)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sys.stdout is stdout
    assert (os.fstat(2).st_dev, os.fstat(2).st_ino) == (fd2.st_dev, fd2.st_ino)
