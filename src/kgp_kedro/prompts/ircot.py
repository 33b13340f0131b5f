"""IRCoT's prompt: Trivedi et al., "Interleaving Retrieval with Chain-of-Thought Reasoning for
Knowledge-Intensive Multi-Step Questions", ACL 2023 (the interleaved reasoning prompt with its
demonstrations; the KGP paper's IRCoT baseline, §8.2). Byte-identical to what the project has
always sent."""
from __future__ import annotations

from collections.abc import Sequence


# -- the reasoning prompt: two demonstrations, the retrieved contexts, the thoughts so far
# two demonstrations in IRCoT's format, from HotpotQA's training examples (paper §8.2 uses two
# 'gold_with_2_distractors' examples)
DEMONSTRATIONS = (
    ("Arthur's Magazine (1844–1846) was an American literary periodical published in "
     "Philadelphia in the 19th century.\nFirst for Women is a woman's magazine published by "
     "Bauer Media Group in the USA. The magazine was started in 1989.",
     "Which magazine was started first Arthur's Magazine or First for Women?",
     "Arthur's Magazine was started in 1844. First for Women was started in 1989. 1844 is "
     "earlier than 1989. So the answer is: Arthur's Magazine."),
    ("The theme was re-arranged during season 2, and the current arrangement by Alf Clausen "
     "was introduced at the beginning of season 3.\nAlf Heiberg Clausen (born March 28, 1941) "
     "is an American film and television composer.",
     "In what year was the creator of the current arrangement of Simpson's Theme born?",
     "The current arrangement of Simpson's Theme was created by Alf Clausen. Alf Clausen was "
     "born on March 28, 1941. So the answer is: 1941."),
)


def ircot_prompt(question: str, contexts: Sequence[str], thoughts: Sequence[str]) -> str:
    demos = "\n\n".join(f"{c}\n\nQ: {q}\nA: {a}" for c, q, a in DEMONSTRATIONS)
    return (f"Answer the question by reasoning step by step, one sentence at a time, using the "
            f"contexts.\n\n{demos}\n\n" + "\n".join(contexts) +
            f"\n\nQ: {question}\nA: {' '.join(thoughts)}").rstrip()
