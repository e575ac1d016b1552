# make demo: set up .venv and write reports/demo.html from the bundled example.
# make test: set up .venv and run the whole test suite (what CI runs).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/ortcopy-doctor demo

test: $(STAMP)
	$(PY) -m pytest -q

clean:
	rm -rf $(VENV) build dist reports/*.html reports/*.onnx
