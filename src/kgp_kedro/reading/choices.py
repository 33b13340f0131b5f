"""``read.choice: dates``: a choice question ("Which film came out first, X or Y?") read one
option at a time. The chosen reader answers such a question from its documents about as a coin
would, naming the option whose document comes first more often than not
(``benchmarks/bench_reader_design.py --position-bias``); here each option's fact is asked from the same contexts
(one call an option: "What do the contexts say about X that this question compares?"), and
where the question asks which came earlier or later and both facts state a date, the dates
decide (:func:`dated_choice`); else the question is read whole. One rule for every retrieval
method; a question that names no two options is read whole. ``whole``: every question read in
one call (the paper's)."""
from __future__ import annotations

import re

from kgp_kedro.llm import LLMClient
from kgp_kedro.prompts.choices import fact_question
from kgp_kedro.prompts.kgp import qa_prompt

CHOICES = ("whole", "dates")
# the last clause of a choice question: ", X or Y?"
OPTIONS = re.compile(r",\s*(?P<first>[^,?]+?)\s+or\s+(?P<second>[^,?]+?)\?\s*$")
# which end of time a choice question asks for ("Who was born first", "released more recently")
EARLIER = re.compile(r"\b(?:first|earlier|earliest|older|oldest|before|sooner)\b", re.I)
LATER = re.compile(r"\b(?:later|latest|last|younger|youngest|recently|recent|newer|after)\b",
                   re.I)
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
_MONTH = "|".join(MONTHS)
# "26 November 1946", "November 26, 1946" or a year alone
DATE = re.compile(rf"\b(?:(?P<day>\d{{1,2}})\s+(?P<month>{_MONTH}),?\s+(?P<year>\d{{3,4}})"
                  rf"|(?P<month2>{_MONTH})\s+(?P<day2>\d{{1,2}}),?\s+(?P<year2>\d{{3,4}})"
                  rf"|(?P<year3>\d{{4}}))\b", re.I)


def choice_options(question: str) -> tuple[str, str] | None:
    """The two options a choice question names in its last clause (``..., X or Y?``), or
    None for any other question."""
    match = OPTIONS.search(question)
    return (match["first"], match["second"]) if match else None


def stated_dates(text: str) -> list[tuple[int, int, int]]:
    """Every date ``text`` states, in order, as ``(year, month, day)``, month and day 0 for a
    year alone."""
    dates = []
    for match in DATE.finditer(text):
        if match["year3"]:
            dates.append((int(match["year3"]), 0, 0))
            continue
        day, month, year = ((match["day"], match["month"], match["year"]) if match["year"]
                            else (match["day2"], match["month2"], match["year2"]))
        dates.append((int(year), MONTHS.index(month.lower()) + 1, int(day)))
    return dates


def first_date(text: str) -> tuple[int, int, int] | None:
    """The first date ``text`` states (:func:`stated_dates`); None when it states none."""
    return next(iter(stated_dates(text)), None)


def dated_choice(question: str, facts: list[tuple[str, str]]) -> str | None:
    """``read.choice: dates``: the option whose fact's first date is the earlier one when the
    question asks for the earlier end ("first", "older", "before"), the later one when it asks
    for the later end ("later", "younger", "more recently"), the words read before its options
    ("The Last Shadow Puppets" asks for no end); None (read whole) when the question asks for
    neither or both, a fact states no date, or the two dates do not tell (the same year where
    either gives the year alone)."""
    options = OPTIONS.search(question)
    stem = question[:options.start()] if options else question
    earlier, later = EARLIER.search(stem), LATER.search(stem)
    if bool(earlier) == bool(later) or len(facts) != 2:
        return None
    (a, fact_a), (b, fact_b) = facts
    date_a, date_b = first_date(fact_a), first_date(fact_b)
    if date_a is None or date_b is None or date_a == date_b:
        return None
    if date_a[0] == date_b[0] and 0 in (date_a[1], date_b[1]):
        return None
    return (a if date_a < date_b else b) if earlier else (a if date_a > date_b else b)


def read_by_facts(client: LLMClient, system: list[dict[str, str]], questions: list[str],
                  contexts: list[list[str]], style: str, method: str) -> dict[int, list]:
    """``read.choice: dates``: per choice question (its position in ``questions``; one that
    names no two options is not asked), each option's fact, asked of the question's prompt
    ``contexts`` in one call an option (:func:`~kgp_kedro.prompts.choices.fact_question`):
    ``[(option, completion), ...]``. A question whose fact call failed is left out, so it is
    read whole."""
    asked = [(i, option) for i, q in enumerate(questions) for option in choice_options(q) or ()]
    replies = client.complete_many(
        [[*system, {"role": "user", "content": qa_prompt(
            fact_question(questions[i], option), contexts[i], style)}] for i, option in asked],
        desc=f"facts {method}")
    facts: dict[int, list] = {}
    for (i, option), reply in zip(asked, replies):
        facts.setdefault(i, []).append((option, reply))
    return {i: pairs for i, pairs in facts.items() if not any(r.error for _, r in pairs)}
