"""The naive baseline the agent has to beat: one BM25 query with the question, the top-k
passages, one answer call with the same model and the same short-answer prompt."""

from __future__ import annotations

from deepresearch.citations import Source
from deepresearch.extractive import extractive_points
from deepresearch.llm.base import ChatModel
from deepresearch.llm.structured import ask_structured
from deepresearch.model_outputs import ShortAnswer
from deepresearch.prompts.steps import answer_messages
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.text import language_of


def naive_answer(
    question: str, model: ChatModel, search: SearchBackend, *, top_k: int = 5
) -> tuple[str, list[SearchHit]]:
    hits = search.search(question, limit=top_k)
    sources = [
        Source(id=i, url=h.url, title=h.title, content=h.content or h.snippet, doc_id=h.doc_id)
        for i, h in enumerate(hits, 1)
    ]
    evidence = extractive_points(sources, question, limit=6, max_chars=240)
    if not evidence:
        return "", hits
    result = ask_structured(
        model,
        answer_messages(question, evidence, language_of(question)),
        ShortAnswer,
        step="answer",
        max_tokens=32,
    )
    return (result.value.answer if result.value else ""), hits
