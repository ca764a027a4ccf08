"""Question terms matched by MiniLM word similarity, measured beside exact stems (not shipped).

    python evals/soft_terms.py --tau 0.72 --runs /tmp/dev/runs /tmp/test/runs [--half dev]

The answer line counts a question term as held by a sentence when the sentence holds its stem, so a
paraphrase ("making" against "the manufacturing location of") leaves the term out, lowering the
evidence's coverage and with it the fitted confidence. Here a sentence also holds a question term
(not a name's) when one of its words is within cosine ``--tau`` of the question's word, both
embedded alone by the MiniLM weights of ``index/embeddings.py``; the ranking, the candidates and
the shipped gate then run as they do. Prints, per half, answer_match / precision when answering on
agent sources (``--runs``) and on each question's context passages, and the abstention with the
gold passages dropped. Needs the ``dense`` extra and the MiniLM weights (see the README).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from fit_answers import context_rows, grounded, outcomes, run_rows, summary

import deepresearch.answers.ground as ground
from deepresearch.answers.evidence import Sentence
from deepresearch.answers.learned import confidence_gate
from deepresearch.index.embeddings import MiniLMEmbedder
from deepresearch.text import key_stems

WORD = re.compile(r"[a-z]{3,}")


class SoftTerms:
    """Wraps :func:`rank_sentences`: each sentence gains the question terms it holds by a close word."""

    def __init__(self, tau: float) -> None:
        self.tau = tau
        self.embedder = MiniLMEmbedder()
        self.vectors: dict[str, Any] = {}
        self.rank = ground.rank_sentences

    def _embed(self, words: Sequence[str]) -> Any:
        new = [w for w in words if w not in self.vectors]
        if new:
            self.vectors.update(zip(new, self.embedder.embed(new), strict=True))
        return np.stack([self.vectors[w] for w in words])

    def expanded(self, pool: Sequence[Sentence], asked: dict[str, str]) -> list[Sentence]:
        words = [set(WORD.findall(s.text.lower())) for s in pool]
        vocabulary = sorted(set().union(*words))
        if not vocabulary:
            return list(pool)
        close: dict[str, set[str]] = {}
        similar = self._embed(list(asked)) @ self._embed(vocabulary).T
        for row, stem in zip(similar, asked.values(), strict=True):
            close.setdefault(stem, set()).update(vocabulary[j] for j in np.nonzero(row >= self.tau)[0])
        out = []
        for sentence, held in zip(pool, words, strict=True):
            extra = {stem for stem, near in close.items() if stem not in sentence.terms and held & near}
            out.append(replace(sentence, terms=sentence.terms | extra) if extra else sentence)
        return out

    def __call__(
        self,
        question_terms: Sequence[str],
        pool: Sequence[Sentence],
        names: frozenset[str] = frozenset(),
        question_text: str = "",
        optional: frozenset[str] = frozenset(),
    ) -> Any:
        asked = {}
        for word in WORD.findall(question_text.lower()):
            stems = key_stems(word)
            if len(stems) == 1 and stems[0] in question_terms and stems[0] not in names:
                asked[word] = stems[0]
        if asked and pool:
            pool = self.expanded(pool, asked)
        return self.rank(question_terms, pool, names, question_text, optional)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tau", type=float, default=0.72, help="cosine at which a word holds a term")
    parser.add_argument("--runs", nargs="*", default=[], help="run folders of `deepresearch eval`")
    parser.add_argument("--half", choices=("dev", "test"))
    args = parser.parse_args()
    ground.rank_sentences = SoftTerms(args.tau)  # type: ignore[assignment]
    gate = confidence_gate(None)
    agent = run_rows([Path(p) for p in args.runs])
    context, dropped = context_rows(), context_rows(drop_gold=True)
    for half in [args.half] if args.half else ["dev", "test"]:
        for origin, rows in (("agent", agent), ("context", context), ("context, no gold", dropped)):
            chosen = [r for r in rows if r.half == half]
            if chosen:
                print(f"{half} {origin}: {summary(outcomes(chosen, grounded(gate)))}", flush=True)


if __name__ == "__main__":
    main()
