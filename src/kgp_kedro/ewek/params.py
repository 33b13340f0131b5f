"""EWEK-QA's parameters (``parameters_ewek.yml``), one typed block with the paper's values as
defaults (§3.1.1, §3.1.2, §3.2, A.1, A.7)."""
from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from kgp_kedro.config.base import Fraction, Params, PosInt
from kgp_kedro.config.sections import Source
from kgp_kedro.prompts.ewek import COMPOSER_INSTRUCTION
from kgp_kedro.training.params import SeededTraining


class SplitterParams(Params):
    """Paragraph Splitter (§3.1.1, A.7.1): line-break paragraphs, whitespace tokens."""

    min_tokens: PosInt = 10    # a paragraph with fewer tokens is discarded
    max_tokens: PosInt = 80    # a longer one is split at sentence boundaries


class EvidenceParams(Params):
    """Evidence Extractor (§3.1.1, A.7.2): one evidence span per document, the sentence most
    similar to the question (MiniLM cosine) grown over neighbouring sentences that score
    within ``margin`` of it, up to ``max_tokens``."""

    enabled: bool = True
    max_tokens: PosInt = 128   # A.1: quotes of at most 128 tokens
    margin: Fraction = 0.1


class TrainingParams(SeededTraining):
    """The cross-encoder trained here (no reranker weights install offline): MiniLM with a
    fresh one-logit head, binary cross-entropy on (question, quote) pairs labelled by the
    datasets' supporting facts, on the questions of the train files in ``sources`` (else the
    ingested questions that are not read, ``qa_questions`` left out), the sources in turn;
    ``heldout_share`` of those questions are held out for the rerank guard
    (:mod:`kgp_kedro.ewek.guard`)."""

    base_model: str = "all-MiniLM-L6-v2"   # the shipped MiniLM (or a local path / hub name)
    # train files whose questions give the pairs, each question's own documents its collection
    # (the datasets' distractors its negatives); empty: the ingested questions not read
    sources: list[Source] = Field(default_factory=list)
    negatives_per_positive: PosInt = 3
    # share of a question's negatives that are its BM25-top non-supporting quotes (the fast
    # filter's mistakes); the rest are drawn at random from its collection
    hard_negatives: Fraction = 0.5
    max_pairs: PosInt = 600
    heldout_share: Fraction = 0.2   # eligible questions held out (never trained on)
    heldout_pairs: PosInt = 300     # held-out pairs scored for the AUC (bounds its cost)
    # 2 epochs at 2e-4 on the bundled train files: held-out AUC within questions 0.641, yet the
    # rerank lowers the held-out recall@5 below BM25's (bench_ewek.py), so the guard fires
    epochs: PosInt = 2
    batch_size: PosInt = 16
    learning_rate: float = Field(2e-4, gt=0)
    warmup_ratio: Fraction = 0.1
    balance: bool = True            # positives weigh as much as negatives in the loss
    max_length: PosInt = 128
    # the trained cross-encoder kept by a digest of its pairs, these parameters and the base
    # model's files: an unchanged re-run loads it instead of training (~20 min on 2 CPUs);
    # null: trained every run
    cache_dir: str | None = "data/06_models/cache/trained"


class RerankParams(Params):
    """Retrieve and rerank (§3.1.1): a fast filter keeps ``filter_top`` quotes, then a
    cross-encoder orders them."""

    # the fast filter, registered in kgp_kedro.ewek.rerank.FAST_FILTERS: bm25 | minilm (cosine)
    filter: str = "bm25"
    filter_top: PosInt = 70
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    # null: the cross-encoder the ewek stage trains (ewek_cross_encoder, data/06_models);
    # a hub name (e.g. cross-encoder/ms-marco-MiniLM-L6-v2, needs network once) or a local path
    cross_encoder: str | None = None
    max_length: PosInt = 256
    batch_size: PosInt = 32
    device: str = "auto"
    # guard (kgp_kedro.ewek.guard): the trained cross-encoder reorders the quotes only when,
    # on held-out questions, its AUC within questions reaches this and it loses no recall@k
    # against the filter's order; else the filter's order is kept (logged)
    min_auc: Fraction = 0.6

    @field_validator("filter")
    @classmethod
    def _filter_known(cls, name: str) -> str:
        from kgp_kedro.ewek.rerank import FAST_FILTERS

        if name not in FAST_FILTERS.names():
            raise ValueError(f"must be one of {', '.join(FAST_FILTERS.names())}, got {name!r}")
        return name


class DedupParams(Params):
    """Deduplicator (§3.1.1): a quote whose MiniLM cosine to a kept one is above
    ``threshold`` is dropped."""

    threshold: float = Field(0.9, ge=-1.0, le=1.0)


class TogParams(Params):
    """ToG-E / ToG beam search (§3.1.2, A.1): width N and depth D."""

    width: PosInt = 3
    depth: PosInt = 3
    topic_entities: PosInt = 3      # start entities: named in the question, else the nearest
    prune_max_tokens: PosInt = 96   # ToG's LLM pruning and reasoning replies


class ComposerParams(Params):
    """Answer composer (§3.2, A.4): one LLM call, KG triples as the first quote."""

    quotes: PosInt = 5              # A.1: the top 5 quotes
    max_tokens: PosInt = 64
    instruction: str = COMPOSER_INSTRUCTION   # A.4's LLaMA-2 instruction (kgp_kedro.prompts.ewek)
    judge: bool = False             # A.3: the LLM judges each cited sentence against its quote
    judge_max_tokens: PosInt = 4


class EwekMethod(Params):
    """One EWEK-QA configuration: which knowledge the composer gets."""

    # none, or a registered KG search (kgp_kedro.ewek.tog.KG_SEARCHES): toge (ToG-E), tog
    # (ToG's LLM pruning and reasoning)
    kg: str = "toge"
    web: bool = True                               # quotes from the documents

    @field_validator("kg")
    @classmethod
    def _kg_known(cls, kg: str) -> str:
        from kgp_kedro.ewek.tog import KG_SEARCHES

        if kg != "none" and kg not in KG_SEARCHES.names():
            raise ValueError(f"must be none or one of {', '.join(KG_SEARCHES.names())}, "
                             f"got {kg!r}")
        return kg

    @model_validator(mode="after")
    def _some_knowledge(self) -> "EwekMethod":
        if self.kg == "none" and not self.web:
            raise ValueError("a method needs kg or web knowledge (kg: none and web: false)")
        return self


class FactsParams(Params):
    """The entity-relation KG ToG-E walks: HOLMES' fact graph (:mod:`kgp_kedro.facts`) of each
    question's collection, its triples read by a registered fact extractor."""

    extractor: str = "dependency"   # offline spaCy parse (facts.EXTRACTORS); llm: the LLM's
    cache_dir: str | None = "data/04_feature/cache/facts"   # per-document triples; null: off


def _default_methods() -> dict[str, EwekMethod]:
    return {"ewek": EwekMethod(kg="toge", web=True), "ewek_web": EwekMethod(kg="none", web=True),
            "ewek_kg": EwekMethod(kg="toge", web=False)}


class EwekParams(Params):
    encoder: str = "minilm"   # the embed.encoders entry (evidence spans, dedup, ToG-E scores)
    facts: FactsParams = Field(default_factory=FactsParams)
    splitter: SplitterParams = Field(default_factory=SplitterParams)
    evidence: EvidenceParams = Field(default_factory=EvidenceParams)
    rerank: RerankParams = Field(default_factory=RerankParams)
    training: TrainingParams = Field(default_factory=TrainingParams)
    dedup: DedupParams = Field(default_factory=DedupParams)
    tog: TogParams = Field(default_factory=TogParams)
    composer: ComposerParams = Field(default_factory=ComposerParams)
    recall_ks: list[PosInt] = Field(default_factory=lambda: [1, 2, 5, 10])
    methods: dict[str, EwekMethod] = Field(default_factory=_default_methods)
    # a benchmark's recording of what the composer read (results/<benchmark>/composed.csv.gz):
    # each method's quotes and triples read from it instead of selected and searched again, so
    # its prompts are the recorded ones on any CPU (ewek/recorded.py); null: select and search
    replay: str | None = None

    def needs_graph(self) -> bool:
        return any(m.kg != "none" for m in self.methods.values())

    def description(self, name: str, unranked: str | None) -> str:
        """What runs as method ``name`` (its row label in the results store): the KG search
        and the extractor of its triples, and the quotes' order: the cross-encoder's, or when
        ``unranked`` says why not (e.g. ``rerank guard fired``) the fast filter's; the
        Evidence Extractor is the MiniLM-cosine span heuristic (the paper trains one)."""
        method = self.methods[name]
        parts = [f"kg={method.kg},facts={self.facts.extractor}"] if method.kg != "none" else []
        if method.web:
            order = (f"{self.rerank.filter} order ({unranked})" if unranked
                     else "cross-encoder order")
            evidence = "minilm spans" if self.evidence.enabled else "off"
            parts.append(f"quotes={order},evidence={evidence}")
        return " ".join(parts)
