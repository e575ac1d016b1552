# make demo: set up .venv and write reports/demo.html from the bundled example.
# make test: set up .venv, install Debian's chromium if missing (browser tests), run the test suite in parallel
#            (pytest-xdist) with the ONNX backend node models sampled (one per op type): minutes on 2 CPUs.
# make test-full: `make test`, then all 1,765 ONNX backend node models (what CI runs; ~20 more minutes).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DOCTOR ?= $(VENV)/bin/ortcopy-doctor

.PHONY: demo test test-full test-backend-full test-ort-oldest chromium clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

# `demo` exits as `check` would: 1 where a finding is at or above --fail-on error (e.g. OCD001 on a machine where
# CUDA does not load). That is the demo working, so exit 1 is accepted here; 2, 3 and 4 (real failures) are not.
demo: $(STAMP)
	@$(DOCTOR) demo; code=$$?; \
	if [ $$code -eq 1 ]; then echo "(demo: exit 1 because of the findings above, as check would; the report was written)"; \
	elif [ $$code -ne 0 ]; then exit $$code; fi

# tests/project/test_browser.py opens the HTML reports in headless chromium: installed (Debian's package, needs root)
# only where missing, with one line saying so first; without root the browser tests skip with one line instead.
chromium:
	@sh tools/ensure_chromium.sh

# -n auto: one worker per CPU; --dist loadfile: a test file stays on one worker, so its module-scoped fixtures (the
# shared check runs, the fuzz corpus, the wheel's venv) are built once; pytest's progress (dots, percentages) and
# the slowest tests at the end.
test: $(STAMP) chromium
	$(PY) -m pytest -n auto --dist loadfile --durations=15

# The part of `make test-full` that `make test` does not run: all 1,765 backend node models, both providers,
# with a progress line every 50 models (-s).
test-backend-full: $(STAMP)
	ORTCOPY_BACKEND_SUITE=full $(PY) -m pytest -s -v tests/project/test_backend_suite.py -k test_full_suite

# `make test` without the sample of the backend models (a subset of what the full suite then checks), then the
# full backend suite: nothing runs twice.
test-full: $(STAMP) chromium
	$(PY) -m pytest -n auto --dist loadfile --durations=15 --deselect tests/project/test_backend_suite.py::test_suite_sample
	$(MAKE) test-backend-full

# The test suite on the oldest onnxruntime-gpu that pyproject.toml accepts, in a venv of its own (not part of
# `make test` or CI; a few minutes more than `make test`). Runs on CPU here; docs/verification.md "onnxruntime versions" says
# what differs and why the tests that assert newer behaviour skip there.
ORT_OLDEST ?= 1.20.2
VENV_OLDEST ?= .venv-ort-oldest
test-ort-oldest: chromium
	$(PYTHON) -m venv $(VENV_OLDEST)
	$(VENV_OLDEST)/bin/python -m pip install -q --upgrade pip
	$(VENV_OLDEST)/bin/python -m pip install -q -e '.[test]' 'onnxruntime-gpu==$(ORT_OLDEST)'
	$(VENV_OLDEST)/bin/python -c "import onnxruntime as o; print('onnxruntime-gpu', o.__version__)"
	$(VENV_OLDEST)/bin/python -m pytest -n auto --dist loadfile

clean:
	rm -rf $(VENV) $(VENV_OLDEST) build dist reports/*.html reports/*.onnx tests/artifacts
