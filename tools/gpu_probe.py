"""One-off probe on the GPU machine: what ORT logs, profiles and copies for each test model.

Writes a tarball of raw evidence to $OUT; used to learn the formats, not by the tool itself.
"""
import json, os, sys, tarfile, tempfile, time, traceback
from pathlib import Path
import numpy as np, onnx
import onnxruntime as ort
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import models  # noqa: E402

out = Path(os.environ.get("OUT", "/tmp/out")); out.mkdir(parents=True, exist_ok=True)
work = Path(tempfile.mkdtemp())
records = []
try:
    from cupti import cupti
    def req():
        return 8 * 1024 * 1024, 0
    def done(acts):
        for a in acts:
            k = a.kind
            if k == cupti.ActivityKind.MEMCPY:
                records.append(dict(kind="memcpy", copy_kind=int(a.copy_kind), bytes=int(a.bytes), start=int(a.start), end=int(a.end), corr=int(a.correlation_id), src=int(a.src_kind), dst=int(a.dst_kind), stream=int(a.stream_id)))
            elif k in (cupti.ActivityKind.RUNTIME, cupti.ActivityKind.DRIVER):
                records.append(dict(kind="runtime" if k == cupti.ActivityKind.RUNTIME else "driver", cbid=int(a.cbid), start=int(a.start), end=int(a.end), corr=int(a.correlation_id), tid=int(a.thread_id)))
    cupti.activity_register_callbacks(req, done)
    HAVE_CUPTI = True
except Exception as e:
    print("cupti unavailable", repr(e)); HAVE_CUPTI = False

def feeds_for(sess):
    f = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) else 2 for d in i.shape]
        t = {"tensor(float)": np.float32, "tensor(int64)": np.int64, "tensor(uint32)": np.uint32}[i.type]
        if i.name == "target_shape": f[i.name] = np.array([4, 8], np.int64)
        else: f[i.name] = (np.random.default_rng(0).standard_normal(shape)).astype(t) if t == np.float32 else np.ones(shape, t)
    return f

summary = {"ort": ort.__version__, "providers": ort.get_available_providers()}
for name, build in models.ALL.items():
    d = work / name; d.mkdir()
    try:
        m = build(); p = d / "model.onnx"; onnx.save(m, p)
        so = ort.SessionOptions(); so.log_severity_level = 0; so.enable_profiling = True
        so.profile_file_prefix = str(d / "prof")
        so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
        saved = os.dup(2); lf = open(d / "log.txt", "w"); os.dup2(lf.fileno(), 2)
        try:
            s = ort.InferenceSession(str(p), so, providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        finally:
            os.dup2(saved, 2); os.close(saved); lf.close()
        feeds = feeds_for(s)
        s.run(None, feeds)
        if HAVE_CUPTI:
            records.clear()
            for kind in (cupti.ActivityKind.MEMCPY, cupti.ActivityKind.RUNTIME, cupti.ActivityKind.DRIVER):
                cupti.activity_enable(kind)
            c0 = (cupti.get_timestamp(), time.time_ns())
        t0 = time.time_ns()
        outs = [s.run(None, feeds) for _ in range(2)]
        t1 = time.time_ns()
        if HAVE_CUPTI:
            cupti.activity_flush_all(1)
            for kind in (cupti.ActivityKind.MEMCPY, cupti.ActivityKind.RUNTIME, cupti.ActivityKind.DRIVER):
                cupti.activity_disable(kind)
            cupti.activity_flush_all(1)
            (d / "cupti.json").write_text(json.dumps(dict(clock=c0, window=[t0, t1], records=records)))
        prof = s.end_profiling()
        os.replace(prof, d / "profile.json")
        info = [dict(ep=sg.ep_name, nodes=[(n.name, n.op_type, n.domain) for n in sg.get_nodes()]) for sg in s.get_provider_graph_assignment_info()]
        (d / "meta.json").write_text(json.dumps(dict(providers=s.get_providers(), start_ns=s.get_profiling_start_time_ns(), assignment=info, outputs=[str(type(o)) for o in outs[0]])))
        summary[name] = "ok"
    except Exception:
        summary[name] = traceback.format_exc()
    print(name, summary[name][:400])
(work / "summary.json").write_text(json.dumps(summary, indent=1))
with tarfile.open(out / "probe.tar.gz", "w:gz") as t:
    t.add(work, arcname="probe")
