"""Every prompt lives in ``kgp_kedro.prompts``: no other module of the library defines a
module-level prompt text or prompt builder (a public name ending in ``PROMPT``/
``INSTRUCTION`` or ``_prompt``), and each prompt module names its paper."""
from __future__ import annotations

import ast
from pathlib import Path

import kgp_kedro
import kgp_kedro.prompts

LIBRARY = Path(kgp_kedro.__file__).parent
PROMPTS = Path(kgp_kedro.prompts.__file__).parent


def prompt_definitions(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text(), str(path)).body:
        names = ([node.name] if isinstance(node, ast.FunctionDef) else
                 [t.id for t in getattr(node, "targets", [getattr(node, "target", None)])
                  if isinstance(t, ast.Name)])
        # private helpers (e.g. fitting a prompt to the window) are not prompt texts
        found += [n for n in names
                  if n.upper().endswith(("PROMPT", "INSTRUCTION")) and not n.startswith("_")]
    return found


def test_prompts_are_defined_only_in_the_prompts_package():
    outside = {str(p.relative_to(LIBRARY)): prompt_definitions(p)
               for p in sorted(LIBRARY.rglob("*.py")) if PROMPTS not in p.parents}
    assert {p: names for p, names in outside.items() if names} == {}
    inside = [n for p in PROMPTS.glob("*.py") for n in prompt_definitions(p)]
    assert {"qa_prompt", "reader_prompt", "ircot_prompt", "judge_prompt",
            "NEXT_EVIDENCE_INSTRUCTION", "COMPOSER_INSTRUCTION"} <= set(inside)


def test_each_prompt_module_names_its_paper():
    papers = {"ask.py": "own", "kgp.py": "AAAI 2024", "holmes.py": "ACL 2024",
              "ewek.py": "NAACL 2024",
              "tog.py": "ICLR 2024", "ircot.py": "ACL 2023", "structural.py": "no paper",
              "choices.py": "no paper", "hops.py": "no paper"}
    assert sorted(p.name for p in PROMPTS.glob("*.py") if p.name != "__init__.py") == \
        sorted(papers)
    for name, venue in papers.items():
        assert venue in ast.get_docstring(ast.parse((PROMPTS / name).read_text())), name
