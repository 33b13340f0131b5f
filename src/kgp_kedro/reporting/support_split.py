"""``kgp`` against DPR split by the supporting passages their prompts hold (issue 48's table):
on the questions both answered, which prompt holds every supporting passage (the answer's
``context_sp_recall`` is 1), and which holds the larger share; each group's Golden, ``kgp`` and
DPR F1 and the paired ``kgp`` − DPR difference. Whether retrieval's gains reach the answers
shows where only ``kgp``'s prompt holds the support; whether the reader reads ``kgp``'s prompt
as well as DPR's shows where both hold the same."""
from __future__ import annotations

import pandas as pd

METHOD, BASELINE, GOLDEN = "kgp", "dpr", "golden"

# (label, whether a question belongs: kgp's and DPR's share of the supporting passages read)
GROUPS = (
    ("only `kgp`'s prompt holds every supporting passage", lambda k, d: (k == 1) & (d < 1)),
    ("both hold every supporting passage", lambda k, d: (k == 1) & (d == 1)),
    ("neither", lambda k, d: (k < 1) & (d < 1)),
    ("only DPR's", lambda k, d: (k < 1) & (d == 1)),
    ("`kgp`'s prompt holds a larger share", lambda k, d: k > d),
    ("the same share", lambda k, d: k == d),
    ("a smaller share", lambda k, d: k < d),
)


def support_split(answers: pd.DataFrame) -> pd.DataFrame:
    """One row a group of :data:`GROUPS` (``group``, ``questions``, ``golden_f1``, ``kgp_f1``,
    ``dpr_f1``, ``kgp_minus_dpr``; F1 in [0, 1], Golden's over the group's questions it
    answered), over every source's questions that ``kgp`` and DPR both answered with a
    known supporting share; empty when the answers lack either method."""
    keys = ["source", "question_id"]

    def of(method: str) -> pd.DataFrame:
        part = answers[answers["method"] == method].drop_duplicates(keys, keep="last")
        return part.set_index(keys)[["f1", "context_sp_recall"]]

    pair = of(METHOD).join(of(BASELINE), lsuffix="_kgp", rsuffix="_dpr", how="inner").dropna(
        subset=["context_sp_recall_kgp", "context_sp_recall_dpr"])
    if pair.empty:
        return pd.DataFrame(columns=["group", "questions", "golden_f1", "kgp_f1", "dpr_f1",
                                     "kgp_minus_dpr"])
    golden = of(GOLDEN)["f1"].reindex(pair.index)
    out = []
    for label, belongs in GROUPS:
        member = belongs(pair["context_sp_recall_kgp"], pair["context_sp_recall_dpr"])
        group = pair[member]
        out.append({"group": label, "questions": len(group),
                    "golden_f1": golden[member].mean(), "kgp_f1": group["f1_kgp"].mean(),
                    "dpr_f1": group["f1_dpr"].mean(),
                    "kgp_minus_dpr": (group["f1_kgp"] - group["f1_dpr"]).mean()})
    return pd.DataFrame(out)
