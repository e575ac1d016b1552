"""What `ortcopy-doctor run` (watch/program.py) and the program's interpreter (watch/child.py) agree on: the
environment variables the parent sets and the child takes back, and the files the child writes."""

PREFIX = "ORTCOPY_DOCTOR_RUN_"
OBSERVATIONS = PREFIX + "OBSERVATIONS"  # the file to write
CENSUS = PREFIX + "CENSUS"  # "0": no CUPTI census
PATHS = PREFIX + "PATHS"  # the entries put first on PYTHONPATH, os.pathsep-separated
PYTHONPATH = PREFIX + "PYTHONPATH"  # the program's own PYTHONPATH; absent where it had none
STARTED = ".started"  # beside the observations file: the child began recording
MODELS = ".models"  # beside the observations file: the child's model files, as absolute paths
REPLAY = ".replay"  # beside the observations file: <observations>.replay-<session>-<k>.npz/.json, inputs to replay

__all__ = ["CENSUS", "MODELS", "OBSERVATIONS", "PATHS", "PREFIX", "PYTHONPATH", "REPLAY", "STARTED"]
