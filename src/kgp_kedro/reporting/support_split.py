"""``kgp`` against DPR split by the supporting passages their prompts hold (issue 48's table):
on the questions both answered, which prompt holds every supporting passage (the answer's
``context_sp_recall`` is 1), and which holds the larger share; each group's Golden, ``kgp`` and
DPR F1 and the paired ``kgp`` − DPR difference with its 95 % percentile bootstrap interval over
the group's questions, and on how many of them either answers better (a difference can rest on
a few questions of many read alike: the interval and the counts say so).
Whether retrieval's gains reach the answers
shows where only ``kgp``'s prompt holds the support; whether the reader reads ``kgp``'s prompt
as well as DPR's shows where both hold the same."""
from __future__ import annotations

import pandas as pd

from kgp_kedro.evaluation.bootstrap import mean_interval

METHOD, BASELINE, GOLDEN = "kgp", "dpr", "golden"

# (key, label, whether a question belongs: kgp's and DPR's share of the supporting passages
# read); the key names the group in a results block (``support group=same``)
GROUPS = (
    ("only_kgp", "only `kgp`'s prompt holds every supporting passage",
     lambda k, d: (k == 1) & (d < 1)),
    ("both", "both hold every supporting passage", lambda k, d: (k == 1) & (d == 1)),
    ("neither", "neither", lambda k, d: (k < 1) & (d < 1)),
    ("only_dpr", "only DPR's", lambda k, d: (k < 1) & (d == 1)),
    ("larger", "`kgp`'s prompt holds a larger share", lambda k, d: k > d),
    ("same", "the same share", lambda k, d: k == d),
    ("smaller", "a smaller share", lambda k, d: k < d),
)


def support_split(answers: pd.DataFrame) -> pd.DataFrame:
    """One row a group of :data:`GROUPS` (``key``, ``group``, ``questions``, ``golden_f1``, ``kgp_f1``,
    ``dpr_f1``, ``kgp_minus_dpr`` with ``kgp_minus_dpr_low`` / ``_high``, its paired interval
    (:func:`~kgp_kedro.evaluation.bootstrap.mean_interval`, seed 0), ``kgp_better`` and
    ``dpr_better``: the questions where one's F1 is the higher; F1 in [0, 1], Golden's over
    the group's questions it answered), over every source's questions that ``kgp`` and DPR both answered with a
    known supporting share; empty when the answers lack either method."""
    keys = ["source", "question_id"]

    def of(method: str) -> pd.DataFrame:
        part = answers[answers["method"] == method].drop_duplicates(keys, keep="last")
        return part.set_index(keys)[["f1", "context_sp_recall"]]

    pair = of(METHOD).join(of(BASELINE), lsuffix="_kgp", rsuffix="_dpr", how="inner").dropna(
        subset=["context_sp_recall_kgp", "context_sp_recall_dpr"])
    if pair.empty:
        return pd.DataFrame(columns=["key", "group", "questions", "golden_f1", "kgp_f1", "dpr_f1",
                                     "kgp_minus_dpr", "kgp_minus_dpr_low", "kgp_minus_dpr_high",
                                     "kgp_better", "dpr_better"])
    golden = of(GOLDEN)["f1"].reindex(pair.index)
    out = []
    for key, label, belongs in GROUPS:
        member = belongs(pair["context_sp_recall_kgp"], pair["context_sp_recall_dpr"])
        group = pair[member]
        difference = (group["f1_kgp"] - group["f1_dpr"]).to_numpy(dtype=float)
        low, high = mean_interval(difference)
        out.append({"key": key, "group": label, "questions": len(group),
                    "golden_f1": golden[member].mean(), "kgp_f1": group["f1_kgp"].mean(),
                    "dpr_f1": group["f1_dpr"].mean(),
                    "kgp_minus_dpr": difference.mean() if len(difference) else float("nan"),
                    "kgp_minus_dpr_low": low, "kgp_minus_dpr_high": high,
                    "kgp_better": int((difference > 0).sum()),
                    "dpr_better": int((difference < 0).sum())})
    return pd.DataFrame(out)
