# The README's two commands: `make run` and `make test`. Both are idempotent.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export KEDRO_DISABLE_TELEMETRY := 1
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run test viz lab benchmark clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install only when the project's dependency list changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/kedro run --pipeline=kg_quality
	@echo "Outputs: data/08_reporting/ (kg_quality_figure.html/.json, versioned) and data/07_model_output/ (kg_quality_summary, kg_stats)"

test: $(STAMP)
	$(BIN)/python -m pytest

viz: $(STAMP)
	$(BIN)/kedro viz run

lab: $(STAMP)
	$(BIN)/kedro jupyter lab

benchmark: $(STAMP)
	$(BIN)/python benchmarks/bench_kg.py
	$(BIN)/python benchmarks/bench_retrieval.py

clean:
	rm -rf $(VENV)
