# make demo: set up .venv and write reports/demo.html from the bundled example.
# make test: set up .venv, install Debian's chromium if missing (browser tests), run the whole test suite (what CI runs).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test chromium clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/ortcopy-doctor demo

# tests/test_browser.py opens the HTML reports in headless chromium; installing it needs root and Debian's archive.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "chromium not found: installing Debian's chromium for tests/test_browser.py"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

# ORTCOPY_BACKEND_SUITE=full: tests/test_backend_suite.py checks all 1,765 ONNX backend node models (~18 min on 2 CPUs).
test: $(STAMP) chromium
	ORTCOPY_BACKEND_SUITE=full $(PY) -m pytest -q

clean:
	rm -rf $(VENV) build dist reports/*.html reports/*.onnx tests/artifacts
