# Every target sets itself up from a fresh clone: it creates or reuses .venv in the repo root.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch is pinned and installed first, so no other package pulls a CUDA build.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[all,dev]'
	rm -f $(VENV)/.installed-*
	touch $@

demo: $(STAMP)
	$(BIN)/python -m longground.demo

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) .pytest_cache build src/*.egg-info
