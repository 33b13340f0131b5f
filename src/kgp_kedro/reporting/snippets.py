"""Results prose generated from the committed results store: a page (``README.md``,
``docs/**/*.md``) quotes a result only through a block

    <!-- results:FOLDER/SNIPPET key=value ... -->TEXT<!-- /results -->

whose TEXT ``python -m kgp_kedro.reporting.results`` writes from ``results/FOLDER``
(``--check`` fails when a committed TEXT differs from what the files give). FOLDER is any
benchmark folder (one with an ``answers.csv``: the snippets of :data:`ANSWER_SNIPPETS`) or a
measurement kind (``retrieval``: :data:`RETRIEVAL_SNIPPETS`), so a new benchmark folder gets
every answers snippet with no change here. A retrieval table's column shows a method its
measurement lacks from ``results/peers`` (a peer's own code, run in the same unit with the same
encoder), so the peers sit in the project's tables. A figure per source reads ``a / b / c`` in
:data:`SOURCE_ORDER` (HotpotQA / MuSiQue / 2Wiki; other sources after them, by name); a
paired difference names its source and, where its interval holds 0, says "no difference
measured".

Outside blocks, the sections of :data:`RESULTS_SECTIONS` and every paragraph that holds a
block quote no decimal figure of their own (:func:`unquoted_figures`): a results figure there
is a block or it is nothing. A paper's own figures are quoted in a parenthesis that opens with
"paper" or "the paper" (``(the paper: 59.7 against 62.1)``).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from kgp_kedro.evaluation.metrics import Column
from kgp_kedro.evaluation.qa_scores import metric_columns, summarise_scores
from kgp_kedro.reporting.qa_tables import comparison_table, paired_differences, score_intervals
from kgp_kedro.reporting.support_split import GROUPS, support_split

BLOCK = re.compile(r"<!-- results:(?P<spec>[^>]*?) -->(?P<body>.*?)<!-- /results -->", re.S)
OPENING = "<!-- results:"
# code (a fenced block or an inline span) is left as written: a page may show a block's syntax
CODE = re.compile(r"^(?P<fence>```|~~~).*?^(?P=fence)|`[^`\n]+`", re.S | re.M)
BLOCK_OR_CODE = re.compile(f"(?P<code>{CODE.pattern})|{BLOCK.pattern}", re.S | re.M)
SOURCE_ORDER = ("hotpotqa", "musique", "2wikimultihopqa")
SOURCE_LABELS = {"hotpotqa": "HotpotQA", "musique": "MuSiQue", "2wikimultihopqa": "2Wiki"}
# the sections whose figures all come from blocks: (page, heading text)
RESULTS_SECTIONS = (("README.md", "Results"),
                    ("docs/results.md", "What holds from each paper on this data"))
# a decimal figure (.52, 37.8, −2.3), not part of a name or a version (0.5B, Qwen2.5, GPT-3.5,
# 2.13.0)
FIGURE = re.compile(r"(?<![\w.§])(?<!\w-)[−+-]?\d*\.\d+(?!\w|\.\d)")
# a paper's own figure, quoted in a parenthesis that opens with "paper" or "the paper"
PAPER_QUOTE = re.compile(r"\((?:the )?paper\b[^()]*\)")


def _share(x: float) -> str:
    """.52 (a fraction in 0..1, its leading zero dropped)."""
    text = f"{x:.2f}"
    return text[1:] if text.startswith("0.") else text


def _share3(x: float) -> str:
    text = f"{x:.3f}"
    return text[1:] if text.startswith("0.") else text


def _signed(x: float, decimals: int = 1) -> str:
    return f"{x:+.{decimals}f}".replace("-", "−")


# the reader's costs in answers.csv -> how one of their means is written
COST_FORMATS: dict[str, Callable[[float], str]] = {
    "n_contexts": lambda x: f"{x:.1f}", "prompt_tokens": lambda x: f"{x:,.0f}",
    "completion_tokens": lambda x: f"{x:.0f}", "llm_calls": lambda x: f"{x:.1f}",
    "reader_latency_ms": lambda x: f"{x:,.0f}"}


def _metric_format(column: Column) -> Callable[[float], str]:
    return (lambda x: f"{x:.{column.decimals}f}") if column.percent else _share


def answer_formats() -> dict[str, Callable[[float], str]]:
    """answers.csv column -> how one of its means is written: every registered metric's (a
    percent, scaled by 100, with the metric's ``decimals``; a fraction as .52) and the
    reader's costs (:data:`COST_FORMATS`)."""
    return {**{c.name: _metric_format(c) for c in metric_columns()}, **COST_FORMATS}


def _percent(metric: str) -> bool:
    """Whether ``metric`` is a registered metric written as a percent."""
    return any(c.name == metric and c.percent for c in metric_columns())
# results/retrieval/*.csv column (or derived figure) -> how it is written
RETRIEVAL_FORMATS: dict[str, Callable[[float], str]] = {
    "recall_at_2": _share3, "recall_at_5": _share3, "sp_em_at_30": _share3,
    "ms_per_question": lambda x: f"{x:,.1f}", "calls_per_question": lambda x: f"{x:.2f}",
    "wall_s": lambda x: f"{x:,.0f}", "index_s_per_1000_passages": lambda x: f"{x:,.1f}",
    "peak_rss_mb": lambda x: f"{x:,.0f}", "index_llm_tokens": lambda x: f"{x:,.0f}"}


def ordered_sources(sources) -> list[str]:
    """``sources`` in :data:`SOURCE_ORDER`, any other after them by name."""
    return sorted(dict.fromkeys(sources),
                  key=lambda s: (SOURCE_ORDER.index(s) if s in SOURCE_ORDER else len(SOURCE_ORDER),
                                 s))


class SnippetError(ValueError):
    """A results block that cannot be generated (its page and line are in the message)."""


@dataclass
class ResultsData:
    """What the blocks read: each benchmark folder's answers and each measurement kind's
    ``(name, table)`` list, as :func:`kgp_kedro.reporting.results.regenerate` loads them."""

    answers: Mapping[str, pd.DataFrame]
    measurements: Mapping[str, Sequence[tuple[str, pd.DataFrame]]]
    _cache: dict = field(default_factory=dict)

    def rows(self, folder: str, on: str | None = None) -> pd.DataFrame:
        """``folder``'s answers; with ``on``, only the questions benchmark ``on`` answered."""
        answers = self.answers[folder]
        if on is None:
            return answers
        if on not in self.answers:
            raise SnippetError(f"on={on}: no benchmark folder {on!r} ({', '.join(self.answers)})")
        asked = self.answers[on][["source", "question_id"]].astype(str).drop_duplicates()
        keyed = answers.astype({"question_id": str})
        return keyed.merge(asked, on=["source", "question_id"])

    def table(self, folder: str, on: str | None) -> pd.DataFrame:
        """Table 1's figures (as ``tables.md`` computes them), one row per method."""
        key = ("table", folder, on)
        if key not in self._cache:
            rows = self.rows(folder, on)
            self._cache[key] = comparison_table(
                summarise_scores(rows), intervals=score_intervals(rows)).set_index("method")
        return self._cache[key]

    def support(self, folder: str, on: str | None) -> pd.DataFrame:
        """The support split (as ``tables.md`` computes it), one row a group by its key."""
        key = ("support", folder, on)
        if key not in self._cache:
            self._cache[key] = support_split(self.rows(folder, on)).set_index("key")
        return self._cache[key]

    def diffs(self, folder: str, baseline: str, metric: str, on: str | None) -> pd.DataFrame:
        key = ("diffs", folder, baseline, metric, on)
        if key not in self._cache:
            self._cache[key] = paired_differences(self.rows(folder, on), baseline,
                                                  metric).set_index(["source", "method"])
        return self._cache[key]


def _list(args: Mapping[str, str], key: str) -> list[str]:
    return [v for v in _need(args, key).split(",") if v]


def _need(args: Mapping[str, str], key: str) -> str:
    if key not in args:
        raise SnippetError(f"needs {key}=…")
    return args[key]


def _means(rows: pd.DataFrame, method: str, metric: str) -> dict[str, float]:
    if metric not in (formats := answer_formats()):
        raise SnippetError(f"metric={metric}: not one of {', '.join(formats)}")
    part = rows[rows["method"] == method]
    if part.empty:
        raise SnippetError(f"method={method}: no rows (methods: "
                           f"{', '.join(dict.fromkeys(rows['method']))})")
    means = part.groupby("source")[metric].mean()
    scale = 100 if _percent(metric) else 1
    return {s: scale * means[s] for s in ordered_sources(means.index)}


def _per_source(values: Mapping[str, float], fmt: Callable[[float], str]) -> str:
    return " / ".join("–" if pd.isna(v) else fmt(v) for v in values.values())


def _value(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``method=M [metric=f1] [on=FOLDER]``: M's mean per source, ``a / b / c``."""
    metric = args.get("metric", "f1")
    return _per_source(_means(data.rows(folder, args.get("on")), _need(args, "method"), metric),
                       answer_formats()[metric])


def _scores(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``methods=A,B [metric=f1] [on=FOLDER]``: each method's name and its means."""
    metric = args.get("metric", "f1")
    rows = data.rows(folder, args.get("on"))
    return ", ".join(f"`{m}` {_per_source(_means(rows, m, metric), answer_formats()[metric])}"
                     for m in _list(args, "methods"))


def _range(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``method=M [metric=f1]``: the lowest and highest of M's per-source means."""
    metric = args.get("metric", "f1")
    values = list(_means(data.rows(folder, args.get("on")), _need(args, "method"),
                         metric).values())
    fmt = answer_formats()[metric]
    low, high = fmt(min(values)), fmt(max(values))
    return low if low == high else f"{low}–{high}"


def _difference(x: Mapping[str, float], metric: str, count: str = "") -> str:
    """A paired difference row (``diff``, ``low``, ``high``) as ``+4.1 [−2.0, +10.3]``, then
    ``count`` (`` over 309 questions``), then ", no difference measured" where the interval
    holds 0: percent metrics in points with one decimal, fractions (context_sp_recall) with
    two."""
    scale, decimals = (100, 1) if _percent(metric) else (1, 2)
    low, high = scale * x["low"], scale * x["high"]
    return (f"{_signed(scale * x['diff'], decimals)} [{_signed(low, decimals)}, "
            f"{_signed(high, decimals)}]{count}"
            + (", no difference measured" if low <= 0 <= high else ""))


def _diff(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``method=M baseline=B [metric=f1] [on=FOLDER]``: per source, M minus B over the
    questions both answered with its paired 95 % interval (as ``tables.md``)."""
    method, baseline = _need(args, "method"), _need(args, "baseline")
    metric = args.get("metric", "f1")
    diffs = data.diffs(folder, baseline, metric, args.get("on"))
    cells = [f"{SOURCE_LABELS.get(source, source)} "
             + _difference(diffs.loc[(source, method)], metric)
             for source in ordered_sources(s for s, m in diffs.index if m == method)]
    if not cells:
        raise SnippetError(f"no paired rows of {method} and {baseline}")
    return "; ".join(cells)


def _pooled(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``method=M baseline=B [metric=f1] [on=FOLDER]``: M minus B over every source's
    questions both answered, pooled, with its paired 95 % interval and the questions'
    count (``+0.0 [−3.8, +3.8] over 309 questions``)."""
    method, baseline = _need(args, "method"), _need(args, "baseline")
    metric = args.get("metric", "f1")
    rows = data.rows(folder, args.get("on"))
    rows = rows[rows["method"].isin([method, baseline])]
    pooled = rows.assign(question_id=rows["source"].astype(str) + "/"
                         + rows["question_id"].astype(str), source="pooled")
    diffs = paired_differences(pooled, baseline, metric)
    diffs = diffs[diffs["method"] == method]
    if diffs.empty:
        raise SnippetError(f"no paired rows of {method} and {baseline}")
    x = diffs.iloc[0]
    return _difference(x, metric, f" over {int(x['questions'])} questions")


def _of_golden(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``method=M [on=FOLDER]``: M's F1 as a share of Golden's, per source (Table 1's
    ``F1 / Golden F1``)."""
    table = data.table(folder, args.get("on"))
    method = _need(args, "method")
    if method not in table.index:
        raise SnippetError(f"method={method}: no rows")
    columns = [c for c in table.columns if c.endswith("/f1_vs_golden")]
    sources = ordered_sources(c.split("/")[0] for c in columns)
    return " / ".join(_share(table.loc[method, f"{s}/f1_vs_golden"]) for s in sources)


def _saving(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``method=M base=B [metric=prompt_tokens]``: how much less of ``metric`` M takes than B
    on the questions both answered, lowest–highest over sources, in percent."""
    metric = args.get("metric", "prompt_tokens")
    rows = data.rows(folder, args.get("on"))
    method, base = _need(args, "method"), _need(args, "base")
    savings = []
    for _, part in rows.groupby("source"):
        wide = part.pivot_table(index="question_id", columns="method", values=metric).reindex(
            columns=[method, base]).dropna()
        if len(wide):
            savings.append(100 * (1 - wide[method].mean() / wide[base].mean()))
    if not savings:
        raise SnippetError(f"no questions that both {method} and {base} answered")
    low, high = f"{min(savings):.0f}", f"{max(savings):.0f}"
    return f"{low} %" if low == high else f"{low}–{high} %"


def _questions(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``[method=M]``: the questions a source M was read on (every method's most without M);
    one number when every source has the same."""
    rows = data.rows(folder, args.get("on"))
    if "method" in args:
        rows = rows[rows["method"] == args["method"]]
    counts = rows.groupby(["source", "method"])["question_id"].nunique().groupby("source").max()
    values = [str(int(counts[s])) for s in ordered_sources(counts.index)]
    return values[0] if len(set(values)) == 1 else " / ".join(values)


def _support(data: ResultsData, folder: str, args: Mapping[str, str]) -> str:
    """``group=KEY [on=FOLDER]``: ``kgp`` minus DPR on one group of the support split (a key
    of :data:`~kgp_kedro.reporting.support_split.GROUPS`: ``same``, ``both``, ``only_kgp``,
    ...) with its paired 95 % interval, the group's count and on how many questions each
    answers better, as the tables' block."""
    keys = [key for key, _, _ in GROUPS]
    key = _need(args, "group")
    if key not in keys:
        raise SnippetError(f"group={key}: not one of {', '.join(keys)}")
    split = data.support(folder, args.get("on"))
    if key not in split.index or not split.loc[key, "questions"]:
        raise SnippetError(f"group={key}: no question both kgp and dpr answered")
    x = split.loc[key]
    return _difference({"diff": x["kgp_minus_dpr"], "low": x["kgp_minus_dpr_low"],
                        "high": x["kgp_minus_dpr_high"]}, "f1",
                       f" over {int(x['questions'])} questions (`kgp` better on "
                       f"{int(x['kgp_better'])}, DPR on {int(x['dpr_better'])})")


ANSWER_SNIPPETS: dict[str, Callable[[ResultsData, str, Mapping[str, str]], str]] = {
    "value": _value, "scores": _scores, "range": _range, "diff": _diff, "pooled": _pooled,
    "of_golden": _of_golden, "saving": _saving, "questions": _questions, "support": _support}


def retrieval_figures(table: pd.DataFrame) -> pd.DataFrame:
    """A retrieval measurement with its derived figure ``index_s_per_1000_passages`` (the
    index-time seconds over the passages indexed, NaN where the run did not record them)."""
    return table.assign(index_s_per_1000_passages=1000 * table["index_s"] / table["passages"])


def _measurement_values(data: ResultsData, kind: str, name: str, method: str,
                        metric: str) -> dict[str, float]:
    tables = dict(data.measurements[kind])
    if name not in tables:
        raise SnippetError(f"measurement={name}: not in results/{kind} ({', '.join(tables)})")
    return _method_values(tables[name], name, method, metric)


def _method_values(table: pd.DataFrame, name: str, method: str,
                   metric: str) -> dict[str, float]:
    """``method``'s ``metric`` per source in measurement ``table`` (called ``name``)."""
    if metric not in RETRIEVAL_FORMATS:
        raise SnippetError(f"metric={metric}: not one of {', '.join(RETRIEVAL_FORMATS)}")
    part = retrieval_figures(table)
    part = part[part["method"] == method].set_index("source")
    if part.empty:
        raise SnippetError(f"method={method}: not measured in {name}")
    return {s: float(part.loc[s, metric]) for s in ordered_sources(part.index)}


# results/peers: the peers' own code run in a project measurement's setting
# (benchmarks/peers/), rows in the retrieval measurements' form
PEERS = "peers"


def _encoders(table: pd.DataFrame) -> set[str]:
    """The encoders a measurement's rows name (none before the column was recorded)."""
    return (set(table["encoder"].dropna().astype(str)) if "encoder" in table.columns
            else set())


def _peer_values(data: ResultsData, table: pd.DataFrame, method: str,
                 metric: str) -> dict[str, float]:
    """``method``'s ``metric`` per source from the peer measurement (``results/peers``) of
    ``table``'s recall unit whose ``method`` rows ran with ``table``'s encoder: what a column
    of a retrieval table shows for a peer that the project's measurement does not hold (empty
    where no peer was run so)."""
    from kgp_kedro.reporting.retrieval_results import recall_unit

    encoders = _encoders(table)
    found = {}
    for name, peer in data.measurements.get(PEERS, ()):
        rows = peer[(peer["method"] == method) & peer["encoder"].astype(str).isin(encoders)]
        if len(rows) and recall_unit(peer) == recall_unit(table):
            found[name] = _method_values(rows, name, method, metric)
    if len(found) > 1:
        raise SnippetError(f"method={method}: in several peer measurements with encoder "
                           f"{', '.join(sorted(encoders))} ({', '.join(found)})")
    return next(iter(found.values()), {})


def _column_values(data: ResultsData, kind: str, name: str, method: str,
                   metric: str) -> dict[str, float]:
    """``method``'s ``metric`` per source in measurement ``name``, or where ``name`` does not
    hold ``method``, a peer's (:func:`_peer_values`: the same unit and encoder); empty when
    neither has it."""
    tables = dict(data.measurements[kind])
    if name in tables and method not in set(tables[name]["method"]) and kind != PEERS:
        return _peer_values(data, tables[name], method, metric)
    return _measurement_values(data, kind, name, method, metric)


def _retrieval_value(data: ResultsData, kind: str, args: Mapping[str, str]) -> str:
    """``measurement=NAME method=M metric=COLUMN``: M's figure per source in NAME (a peer's
    where NAME does not hold M: :func:`_column_values`)."""
    metric, name, method = _need(args, "metric"), _need(args, "measurement"), _need(args, "method")
    values = _column_values(data, kind, name, method, metric)
    if not values:
        raise SnippetError(f"method={method}: not measured in {name} or by a peer beside it")
    return _per_source(values, RETRIEVAL_FORMATS[metric])


RETRIEVAL_LABELS = {"recall_at_2": "doc R@2", "recall_at_5": "doc R@5",
                    "sp_em_at_30": "SP-EM@30", "ms_per_question": "ms / question",
                    "calls_per_question": "model calls / question", "wall_s": "wall s",
                    "index_s_per_1000_passages": "index s / 1,000 passages",
                    "peak_rss_mb": "peak MB", "index_llm_tokens": "LLM tokens at index time"}


def _of_unit(data: ResultsData, kind: str, args: Mapping[str, str]) -> list[str]:
    """The measurements whose recall is in ``unit=`` (``document``, the default, or
    ``passage``: HippoRAG 2's setting), so one block never sets the two units side by side."""
    from kgp_kedro.reporting.retrieval_results import recall_unit

    unit = args.get("unit", "document")
    return [name for name, table in data.measurements[kind] if recall_unit(table) == unit]


def _label(metric: str, args: Mapping[str, str]) -> str:
    label = RETRIEVAL_LABELS[metric]
    return (label.replace("doc ", "passage ") if args.get("unit", "document") == "passage"
            else label)


def _retrieval_table(data: ResultsData, kind: str, args: Mapping[str, str]) -> str:
    """``methods=A,B metric=COLUMN[,COLUMN…] [bold=M]``: a table, a row per method (per method
    and figure with several) and a column per measurement, ``a / b / c`` per source (every
    source of the measurements shown, "–" where one was not measured; ``unit=passage``:
    HippoRAG 2's setting's measurements). A method a measurement does not hold is a peer's
    own code where one ran in its unit with its encoder (:func:`_peer_values`), else "–"."""
    metrics, bold = _list(args, "metric"), args.get("bold")
    names = _of_unit(data, kind, args)
    tables = dict(data.measurements[kind])
    rows = []   # (method, metric, per measurement: its values per source)
    for method in _list(args, "methods"):
        for metric in metrics:
            values = []
            for n in names:   # {} where not measured there: "–"
                values.append(_column_values(data, kind, n, method, metric)
                              if method in set(tables[n]["method"]) or kind != PEERS else {})
            rows.append((method, metric, values))
    # every source of the measurements shown (and of a peer's rows in them)
    sources = ordered_sources([s for n in names for s in tables[n]["source"]]
                              + [s for *_, values in rows for v in values for s in v])
    lines = ["| method | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for method, metric, values in rows:
        if metric not in RETRIEVAL_FORMATS:
            raise SnippetError(f"metric={metric}: not one of {', '.join(RETRIEVAL_FORMATS)}")
        cells = [_per_source({s: v.get(s, float("nan")) for s in sources},
                             RETRIEVAL_FORMATS[metric]) for v in values]
        if method == bold:
            cells = [f"**{c}**" for c in cells]
        label = f"`{method}`" + (f" {_label(metric, args)}" if len(metrics) > 1 else "")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n\n" + "\n".join(lines) + "\n\n"


def _retrieval_margin(data: ResultsData, kind: str, args: Mapping[str, str]) -> str:
    """``method=M over=A,B metric=COLUMN [measurement=NAME]``: M minus the better of A and B,
    lowest–highest (one value where they agree) over every source of every measurement (of
    NAME alone with ``measurement=``) where all of them were measured (a peer's rows where a
    measurement does not hold a method: :func:`_column_values`)."""
    metric, method = _need(args, "metric"), _need(args, "method")
    names = [_need(args, "measurement")] if "measurement" in args else _of_unit(data, kind, args)
    margins = []
    for name in names:
        mine = _column_values(data, kind, name, method, metric)
        others = [_column_values(data, kind, name, o, metric) for o in _list(args, "over")]
        margins += [mine[s] - max(o[s] for o in others) for s in mine
                    if all(s in o for o in others)]
    if not margins:
        raise SnippetError(f"no source where {method} and {args['over']} were all measured")
    fmt = RETRIEVAL_FORMATS[metric]
    low, high = (fmt(x).replace("-0.", "-.").replace("-", "−") for x in (min(margins),
                                                                       max(margins)))
    # one value where the margins agree (one source); a negative end: "−.019 to −.007" (a
    # dash between two minus signs reads badly)
    if low == high:
        return low
    return f"{low} to {high}" if low.startswith("−") else f"{low}–{high}"


RETRIEVAL_SNIPPETS: dict[str, Callable[[ResultsData, str, Mapping[str, str]], str]] = {
    "value": _retrieval_value, "table": _retrieval_table, "margin": _retrieval_margin}


def render_snippet(data: ResultsData, spec: str) -> str:
    """The text of the block ``<!-- results:SPEC -->`` (SPEC: ``FOLDER/SNIPPET key=value …``)."""
    head, *pairs = spec.split()
    folder, _, name = head.partition("/")
    args = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SnippetError(f"{pair!r}: not key=value")
        args[key] = value
    if folder in data.answers:
        snippets, what = ANSWER_SNIPPETS, "a benchmark's"
    elif folder in data.measurements:
        snippets, what = RETRIEVAL_SNIPPETS, f"results/{folder}'s"
    else:
        raise SnippetError(f"results/{folder}: no benchmark (answers.csv) or measurement "
                           f"folder of that name")
    if name not in snippets:
        raise SnippetError(f"{name!r} is not one of {what} snippets ({', '.join(snippets)})")
    return snippets[name](data, folder, args)


def render_page(text: str, data: ResultsData, page: Path | str) -> str:
    """``text`` with every results block's TEXT generated; an unclosed block or one that cannot
    be generated raises :class:`SnippetError` naming ``page`` and its line."""
    def fill(match: re.Match) -> str:
        if match["code"]:
            return match[0]
        line = text.count("\n", 0, match.start()) + 1
        try:
            body = render_snippet(data, match["spec"])
            line_start = text.rfind("\n", 0, match.start()) + 1
            if not body.startswith("\n") and match.start() == line_start:
                # CommonMark: an HTML comment opening a line ends the paragraph before it
                raise SnippetError("opens its line: put the words before it on the same line")
        except SnippetError as err:
            raise SnippetError(f"{page}:{line}: <!-- results:{match['spec']} -->: {err}") from None
        return f"{OPENING}{match['spec']} -->{body}<!-- /results -->"

    prose = CODE.sub("", text)
    opened, closed = prose.count(OPENING), len(BLOCK.findall(prose))
    if opened != closed:
        raise SnippetError(f"{page}: {opened} results blocks opened, {closed} closed by "
                           f"<!-- /results -->")
    return BLOCK_OR_CODE.sub(fill, text)


def _section(text: str, heading: str) -> str:
    """The text under the markdown heading ``heading`` up to the next heading of its level or
    above (empty when there is no such heading)."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", text, re.M)
    if not match:
        return ""
    level = len(match[1])
    end = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, match.end())
    return text[match.end():end.start() if end else len(text)]


def unquoted_figures(text: str, sections: Sequence[str] = ()) -> list[str]:
    """The decimal figures of ``text`` outside results blocks, in each paragraph that holds a
    block and in the sections headed ``sections``, each with the start of its line."""
    found = []
    text = BLOCK.sub("<block>", text)
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if "<block>" in p]
    for heading in sections:
        paragraphs += re.split(r"\n\s*\n", _section(text, heading))
    for paragraph in dict.fromkeys(paragraphs):
        for line in paragraph.splitlines():
            found += [f"{figure} in: {line.strip()[:80]}"
                      for figure in FIGURE.findall(PAPER_QUOTE.sub("", line))]
    return found


def pages(repository: Path) -> list[Path]:
    """The pages that may hold results blocks: ``README.md`` and ``docs/**/*.md``."""
    found = [repository / "README.md", *sorted((repository / "docs").rglob("*.md"))]
    return [p for p in found if p.is_file()]
