"""The ``train`` block (``parameters_train.yml``): the train files and the bi-encoders and
generators fine-tuned on them. Where the default is not the paper's value, the comment says the paper's and why."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from kgp_kedro.config.base import Fraction, Int, Params, PosInt
from kgp_kedro.config.sections import Source
from kgp_kedro.models.generators import PACKAGED_GENERATOR

BUNDLED_TRAIN_FILES = [
    {"dataset": "hotpotqa", "path": "data/01_raw/hotpotqa/hotpot_train_v1.1_sample100.json"},
    {"dataset": "musique", "path": "data/01_raw/musique/musique_ans_v1.0_train_sample100.jsonl"},
    {"dataset": "2wikimultihopqa", "path": "data/01_raw/2wikimultihopqa/train_sample500.json"},
]


class SeededTraining(Params):
    """What makes a fine-tuning repeatable: its seed, its device and its PyTorch threads. A
    gradient's float sums follow the thread count, so ``threads`` fixes it: the same examples
    then give the same weights whatever ``OMP_NUM_THREADS`` or the number of cores, on one
    kind of CPU. 2 is the count the committed results' models were trained with; null leaves
    PyTorch's own (one a core): faster on more cores, but the weights, so what the model
    retrieves and the prompts it gives the reader, may differ from the committed store's."""

    seed: Int = 0
    device: str = "auto"
    threads: PosInt | None = 2


class EncoderTrainingParams(SeededTraining):
    """One fine-tuned bi-encoder (``dpr``: question -> supporting passage; ``mdr``: question ⊕
    earlier hops -> next hop's passage), MultipleNegativesRankingLoss with hard and in-batch
    negatives (KGP paper Table 4 for DPR/MDR)."""

    kind: Literal["dpr", "mdr"] = "mdr"    # the examples (kgp_kedro.training.examples)
    base_model: str = "all-MiniLM-L6-v2"   # paper: RoBERTa-base (no offline weights here)
    negatives: PosInt = 2                  # hard negatives an example (paper: random ones)
    positives_per_hop: PosInt = 2          # a hop's first passages taken as positives
    # examples trained on; sized so both encoders train in a few minutes on 2 CPUs (the
    # bundled train files give about 1,900 mdr examples; a full train file gives far more)
    max_examples: PosInt = 512
    heldout_share: Fraction = 0.1          # questions held out (never trained on), scored
    max_heldout: PosInt = 20               # held-out questions scored (bounds the cost)
    epochs: PosInt = 1                     # paper: 50 (on 90k HotpotQA questions)
    batch_size: PosInt = 32                # paper: {128, 256, 512}; 32 fits 2 CPUs' memory/time
    learning_rate: float = Field(2e-5, gt=0)   # paper: 2e-5
    warmup_ratio: Fraction = 0.1
    max_length: PosInt = 128               # tokens a text (MDR: 350 for question ⊕ passage)
    scale: float = Field(20.0, gt=0)       # cosine scale of the loss (sentence-transformers')


class GeneratorTrainingParams(SeededTraining):
    """The generative agent fine-tuned on Listing 1 examples (question and evidence so far ->
    next supporting passage; :mod:`kgp_kedro.training.generation`). The paper fine-tunes
    T5-large (0.7B) with its tutorial's defaults on ~90k HotpotQA questions; no T5 weights
    install from the package registry, so the base is the packaged SmolLM2-135M-Instruct
    (any local seq2seq or causal checkpoint, e.g. t5-large on a GPU, or a hub name works)."""

    base_model: str = PACKAGED_GENERATOR
    positives_per_hop: PosInt = 1          # a hop's first passages taken as targets
    # examples trained on: 128 (16 steps of 8) took 586 s on 2 CPUs shared at load ~11, one
    # torch thread (docs/training.md); a GPU takes the full train files (raise it there)
    max_examples: PosInt = 256
    heldout_share: Fraction = 0.1          # questions held out (never trained on), scored
    max_heldout: PosInt = 20               # held-out questions scored (bounds the cost)
    epochs: PosInt = 1                     # paper: the tutorial's (a few epochs)
    batch_size: PosInt = 8                 # paper: the tutorial's (8 for T5)
    learning_rate: float = Field(1e-4, gt=0)   # the tutorial's T5 rate
    warmup_ratio: Fraction = 0.1
    max_input_tokens: PosInt = 192         # question and evidence (cut from the start)
    max_target_tokens: PosInt = 32         # the next passage's opening (title, first words)


class TrainParams(Params):
    """What the train stage reads and trains: ``sources`` are train files only (never dev);
    each entry of ``encoders`` and ``generators`` is trained when a retrieve method names it
    as ``trained:<name>``."""

    sources: list[Source] = Field(default_factory=lambda: [Source(**s) for s in
                                                           BUNDLED_TRAIN_FILES], min_length=1)
    encoders: dict[str, EncoderTrainingParams] = Field(default_factory=lambda: {
        "dpr": EncoderTrainingParams(kind="dpr"), "mdr": EncoderTrainingParams(kind="mdr")})
    # generative agents (KGP-T5's role), named as trained:<name> like the encoders
    generators: dict[str, GeneratorTrainingParams] = Field(default_factory=lambda: {
        "t5": GeneratorTrainingParams()})
    cache_dir: str = "data/06_models/cache/trained"   # models by digest of data + parameters

    @model_validator(mode="after")
    def _distinct_names(self) -> "TrainParams":
        for name in self.generators:
            if name in self.encoders:
                raise ValueError(f"generators.{name}: also a train.encoders entry; a "
                                 "trained:<name> must name one model")
        return self

    def kind_of(self, name: str) -> str | None:
        """``encoder`` or ``generator``: which block names ``name`` (None: neither)."""
        return ("encoder" if name in self.encoders else
                "generator" if name in self.generators else None)
