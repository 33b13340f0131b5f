# The README's two commands: `make run` and `make test`. Both are idempotent.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export KEDRO_DISABLE_TELEMETRY := 1
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run run-all test viz lab benchmark clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# llama-cpp-python builds from source. Its default build uses -march=native, which can turn on
# instructions a CPU advertises but a VM forbids (AMX): the model then segfaults. These flags
# are safe on any x86-64 with AVX2; for a CUDA build: make install LLAMA_CMAKE_ARGS="-DGGML_CUDA=on"
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON

# Re-install only when the project's dependency list changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -c "import llama_cpp" 2>/dev/null || \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet --no-cache-dir \
		"llama-cpp-python==0.3.36"
	$(BIN)/python -m pip install --quiet -e ".[test,local-llm]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/kedro run --pipeline=kg_quality
	@echo "Outputs: data/08_reporting/ (kg_quality_figure.html/.json, versioned) and data/07_model_output/ (kg_quality_summary, kg_stats)"

# the whole flow: KG quality and ingest -> passages -> KGs -> retrieve -> read -> score -> report
run-all: $(STAMP)
	$(BIN)/kedro run
	@echo "Outputs: data/08_reporting/ (qa_table1, qa_table2, reader_costs, qa_figure; versioned); notebooks/results.ipynb reads them"

test: $(STAMP)
	$(BIN)/python -m pytest

viz: $(STAMP)
	$(BIN)/kedro viz run

lab: $(STAMP)
	$(BIN)/kedro jupyter lab

benchmark: $(STAMP)
	$(BIN)/python benchmarks/bench_kg.py
	$(BIN)/python benchmarks/bench_retrieval.py
	$(BIN)/python benchmarks/bench_reader.py

clean:
	rm -rf $(VENV)
