"""Fine-tuning the generative traversal agent (KGP-T5's role) on Listing 1 style examples from
the reasoning paths (:mod:`kgp_kedro.training.paths`, train files only), and scoring it.

An example (KGP paper §A, Listing 1: "What evidence do we need to answer the question given
the current evidence?") is, at hop ``i >= 1`` of a path: input = the question and the text of
one passage of each earlier hop (the evidence so far, as the agent's path holds it); target =
the text of a passage of hop ``i`` (the next supporting passage), cut at
``max_target_tokens``. Hop 0 is left out: KGP's seeds come from TF-IDF, the agent only ever
extends a path. Held-out questions give cases instead: the generation for each hop ``i >= 1``
ranks the collection's passages not on the path before it (TF-IDF cosine, as the agent ranks
its candidates), scored by where the hop's passages land.

The loss is the token cross-entropy of the target given the input: a seq2seq model's decoder
labels, or a causal model's continuation of its prompt (prompt and padding tokens masked)."""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

from kgp_kedro.prompts.kgp import NEXT_EVIDENCE_INSTRUCTION
from kgp_kedro.training.examples import RankingCase, TrainingSet, path_cases, split_paths
from kgp_kedro.training.paths import ReasoningPath

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GenerationExample:
    """The next supporting passage (``target``) of ``question`` given ``evidence``."""

    question_id: str
    hop: int
    question: str
    evidence: tuple[str, ...]
    target: str


@dataclass(frozen=True)
class GenerationCase:
    """A held-out hop: the generator's input and the candidates it ranks."""

    question: str
    evidence: tuple[str, ...]
    ranking: RankingCase


def _evidence(path: ReasoningPath, text: dict[str, str], hop: int) -> tuple[str, ...]:
    """The text of the first passage of each hop before ``hop``."""
    return tuple(text[h[0]] for h in path.hops[:hop])


def path_generation_examples(path: ReasoningPath, collection: pd.DataFrame,
                             positives_per_hop: int) -> list[GenerationExample]:
    """A path's examples: each hop after the first, its first ``positives_per_hop`` passages
    as targets."""
    text = dict(zip(collection["passage_id"], collection["text"]))
    return [GenerationExample(path.question_id, hop, path.question, _evidence(path, text, hop),
                              text[target])
            for hop in range(1, len(path.hops)) for target in path.hops[hop][:positives_per_hop]]


def path_generation_cases(path: ReasoningPath, collection: pd.DataFrame
                          ) -> list[GenerationCase]:
    """A held-out path's cases: each hop after the first among the passages not on the path
    before it."""
    text = dict(zip(collection["passage_id"], collection["text"]))
    return [GenerationCase(path.question, _evidence(path, text, case.hop), case)
            for case in path_cases(path, collection, "mdr") if case.hop >= 1]


def generation_set(paths: Iterable[tuple[ReasoningPath, pd.DataFrame]], positives_per_hop: int,
                   max_examples: int, heldout_share: float, max_heldout: int) -> TrainingSet:
    """Generation examples and held-out cases of ``paths``
    (:func:`~kgp_kedro.training.examples.split_paths`)."""
    return split_paths(paths, lambda p, c: path_generation_examples(p, c, positives_per_hop),
                       path_generation_cases, max_examples, heldout_share, max_heldout)


def batch_loss(generator, batch: Sequence[GenerationExample], max_input_tokens: int,
               max_target_tokens: int):
    """The mean token cross-entropy of the batch's targets given their inputs (a tensor)."""
    import torch

    tokenizer = generator.tokenizer
    prompts = [generator.prompt(NEXT_EVIDENCE_INSTRUCTION, e.question, e.evidence)
               for e in batch]
    if generator.seq2seq:
        inputs = generator.encode_prompts(prompts, max_input_tokens)
        labels = tokenizer([e.target for e in batch], return_tensors="pt", padding=True,
                           truncation=True, max_length=max_target_tokens)
        ids = labels["input_ids"].masked_fill(labels["attention_mask"] == 0, -100)
        return generator.model(**inputs, labels=ids.to(generator.device)).loss
    # causal: prompt (cut from the left) then " target" and the end-of-text token, right-padded
    prompt_ids = tokenizer(prompts, truncation=True, max_length=max_input_tokens,
                           add_special_tokens=False)["input_ids"]
    target_ids = tokenizer([" " + e.target for e in batch], truncation=True,
                           max_length=max_target_tokens, add_special_tokens=False)["input_ids"]
    rows = [(p + t + [tokenizer.eos_token_id], len(p)) for p, t in zip(prompt_ids, target_ids)]
    width = max(len(r) for r, _ in rows)
    input_ids = torch.full((len(rows), width), tokenizer.pad_token_id)
    labels = torch.full((len(rows), width), -100)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, (row, prompt_length) in enumerate(rows):
        input_ids[i, :len(row)] = torch.tensor(row)
        labels[i, prompt_length:len(row)] = torch.tensor(row[prompt_length:])
        mask[i, :len(row)] = 1
    return generator.model(input_ids=input_ids.to(generator.device),
                           attention_mask=mask.to(generator.device),
                           labels=labels.to(generator.device)).loss


def train_generator(examples: Sequence[GenerationExample], params, desc: str = "train generator"):
    """``(generator, seconds, losses)``: the base model of ``params`` (a
    :class:`~kgp_kedro.training.params.GeneratorTrainingParams`) fine-tuned on ``examples``
    (:func:`~kgp_kedro.training.optim.fit`), in eval mode; ``losses`` the loss of every
    step."""
    import torch

    from kgp_kedro.models.generators import open_generator
    from kgp_kedro.training.optim import fit

    if not examples:
        raise ValueError("no training examples: the train sources give no reasoning path "
                         "of two hops or more (train.sources)")
    start = time.perf_counter()
    torch.manual_seed(params.seed)
    generator = open_generator(params.base_model, params.device)
    losses = fit(generator.model, examples, params, lambda batch: batch_loss(
        generator, batch, params.max_input_tokens, params.max_target_tokens), desc)
    seconds = time.perf_counter() - start
    logger.info("%s: %d examples, %d epoch(s), %d steps on %s in %.1f s (loss %.3f -> %.3f)",
                desc, len(examples), params.epochs, len(losses), generator.device, seconds,
                losses[0], losses[-1])
    return generator, seconds, losses


def generation_loss(generator, examples: Sequence[GenerationExample], params) -> float:
    """Mean loss of ``generator`` over ``examples`` in fixed batches (no gradient)."""
    import torch

    values = []
    with torch.inference_mode():
        for begin in range(0, len(examples), params.batch_size):
            batch = examples[begin:begin + params.batch_size]
            values.append(float(batch_loss(generator, batch, params.max_input_tokens,
                                           params.max_target_tokens)) * len(batch))
    return sum(values) / max(1, len(examples))


def generation_ranking(generator, cases: Sequence[GenerationCase], params
                       ) -> dict[str, float]:
    """Next-passage ranking of held-out cases by the TF-IDF cosine of each candidate to the
    generated evidence (:func:`~kgp_kedro.training.encoder.rank_summary`), generating
    ``params.batch_size`` cases a call."""
    from kgp_kedro.search.tfidf import text_similarity
    from kgp_kedro.training.encoder import first_relevant_rank, rank_summary

    generated = generator.generate_batches(
        [generator.prompt(NEXT_EVIDENCE_INSTRUCTION, c.question, c.evidence) for c in cases],
        params.batch_size, params.max_input_tokens, params.max_target_tokens,
        "held-out generations")
    return rank_summary([first_relevant_rank(text_similarity(g, c.ranking.candidates),
                                             c.ranking.relevant)
                         for g, c in zip(generated, cases)])
