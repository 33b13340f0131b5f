"""The ``train`` block (``parameters_train.yml``): the train files and the bi-encoders fine-tuned
on them. Where the default is not the paper's value, the comment says the paper's and why."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from kgp_kedro.config.base import Fraction, Int, Params, PosInt
from kgp_kedro.config.sections import Source

BUNDLED_TRAIN_FILES = [
    {"dataset": "hotpotqa", "path": "data/01_raw/hotpotqa/hotpot_train_v1.1_sample100.json"},
    {"dataset": "musique", "path": "data/01_raw/musique/musique_ans_v1.0_train_sample100.jsonl"},
    {"dataset": "2wikimultihopqa", "path": "data/01_raw/2wikimultihopqa/train_sample500.json"},
]


class EncoderTrainingParams(Params):
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
    seed: Int = 0
    device: str = "auto"


class TrainParams(Params):
    """What the train stage reads and trains: ``sources`` are train files only (never dev);
    each entry of ``encoders`` is trained when a retrieve method names it as ``trained:<name>``."""

    sources: list[Source] = Field(default_factory=lambda: [Source(**s) for s in
                                                           BUNDLED_TRAIN_FILES], min_length=1)
    encoders: dict[str, EncoderTrainingParams] = Field(default_factory=lambda: {
        "dpr": EncoderTrainingParams(kind="dpr"), "mdr": EncoderTrainingParams(kind="mdr")})
    cache_dir: str = "data/06_models/cache/trained"   # models by digest of data + parameters
