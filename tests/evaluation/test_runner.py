"""The evaluation runner with the scripted model over a small corpus file."""

from __future__ import annotations

import json
from pathlib import Path

from deepresearch.evaluation.runner import EvalOptions, run_evaluation
from deepresearch.llm.base import Completion, Message
from deepresearch.llm.testing import ModelCall, ScriptedModel
from deepresearch.settings import Settings

from ..conftest import PASSAGES, QUESTION
from ..fakeopenai import FakeOpenAI, research_responder
from ..server.helpers import wait_for


def _files(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(p) for p in PASSAGES), encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    rows = [
        {"qid": "q1", "question": QUESTION, "answers": ["1410"], "gold_doc_ids": ["d1", "d2"]},
        {
            "qid": "q2",
            "question": "Which river is Prague on?",
            "answers": ["Vltava"],
            "gold_doc_ids": ["d3"],
        },
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    return questions, corpus


def _answer(call: ModelCall) -> str:
    return json.dumps({"answer": "the Vltava" if "Question: Which river" in call.prompt else "1410"})


def test_agent_and_naive_are_scored(tmp_path: Path, settings: Settings) -> None:
    questions, corpus = _files(tmp_path)
    out = tmp_path / "out" / "results.json"
    report = run_evaluation(
        settings,
        EvalOptions(questions, corpus, baseline="naive", out=out),
        model=ScriptedModel({"answer": _answer}),
    )
    agent, naive = report.summary("agent"), report.summary("naive")
    assert agent["n"] == naive["n"] == 2 and agent["failed"] == 0
    # the agent answers "Vltava river" (the noun asked about kept): a match, not an exact one
    assert agent["answer_match"] == 1.0 and agent["em"] == 0.5 and naive["em"] == 1.0
    assert agent["evidence_recall"] == 1.0
    assert agent["citation_validity"] == 1.0
    saved = json.loads(out.read_text())
    assert saved["rows"]["agent"][0]["qid"] == "q1"
    assert out.with_suffix(".md").read_text().count("|") > 10


class _Broken(ScriptedModel):
    def complete(self, messages: list[Message], **kwargs: object) -> Completion:
        if "river" in messages[-1].content:
            from deepresearch.errors import ModelNotAvailableError

            raise ModelNotAvailableError("model went away")
        return super().complete(messages, **kwargs)  # type: ignore[arg-type]


def test_a_failed_question_is_recorded_not_fatal(tmp_path: Path, settings: Settings) -> None:
    questions, corpus = _files(tmp_path)
    report = run_evaluation(settings, EvalOptions(questions, corpus), model=_Broken())
    rows = report.systems["agent"]
    assert [r.error is None for r in rows] == [True, False]
    assert "model went away" in (rows[1].error or "")
    assert report.summary("agent")["failed"] == 1


def test_drop_gold_removes_the_gold_passages_and_the_agent_abstains(
    tmp_path: Path, settings: Settings
) -> None:
    questions, corpus = _files(tmp_path)
    report = run_evaluation(
        settings, EvalOptions(questions, corpus, limit=1, drop_gold=True), model=ScriptedModel()
    )
    row = report.systems["agent"][0]
    assert row.evidence_recall == 0.0, "no gold passage can be read"
    assert row.abstained == 1.0 and row.answer_match == 0.0
    assert row.answer.startswith("The sources read do not answer: ")
    assert "nogold" in report.corpus and "d2" not in Path(report.corpus).read_text()


def test_an_evaluation_closes_its_connections_to_the_model_server_when_it_ends(
    tmp_path: Path, fake: FakeOpenAI, base_url: str
) -> None:
    fake.responder = research_responder()
    preset = {"llm_provider": "custom", "llm_base_url": base_url, "llm_model_id": "fake-model"}
    settings = Settings.load({"deepresearch_home": tmp_path / "home", **preset})
    questions, corpus = _files(tmp_path)

    report = run_evaluation(settings, EvalOptions(questions, corpus, limit=1))

    assert report.systems["agent"][0].error is None and fake.requests
    assert wait_for(lambda: fake.open_connections == 0, timeout=5)


def test_the_halves_split_by_qid_once_and_for_all(tmp_path: Path, settings: Settings) -> None:
    from deepresearch.evaluation.dataset import half_of, load_questions

    questions = tmp_path / "many.jsonl"
    rows = [{"qid": f"invented-{n}", "question": f"Question {n}?", "answers": ["x"]} for n in range(200)]
    questions.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")

    dev = load_questions(questions, half="dev")
    test = load_questions(questions, half="test", seed=3)

    assert {q.qid for q in dev}.isdisjoint({q.qid for q in test}) and len(dev) + len(test) == 200
    assert 70 < len(dev) < 130
    assert all(half_of(q.qid) == "test" for q in test)
    assert [q.qid for q in load_questions(questions, half="dev")] == [q.qid for q in dev]


def test_precision_when_answering_counts_only_the_answers_stated(tmp_path: Path, settings: Settings) -> None:
    questions, corpus = _files(tmp_path)
    report = run_evaluation(
        settings, EvalOptions(questions, corpus), model=ScriptedModel({"answer": _answer})
    )

    row = report.summary("agent")
    assert row["precision_answering"] == 1.0 and row["abstained"] == 0.0
    assert "precision_answering" in report.markdown()
    group = report.groups("agent")
    assert sum(int(g["n"] or 0) for g in group.values()) == row["n"]
    assert all(g["evidence_recall"] is not None for g in group.values())


def test_questions_are_grouped_by_dataset_and_hop_count() -> None:
    from deepresearch.evaluation.dataset import group_of

    assert group_of("hotpotqa:5a1b") == "hotpotqa"
    assert group_of("musique:3hop1__1_2_3") == "musique-3hop"
    assert group_of("musique:2hop__1_2") == "musique-2hop"
    assert group_of("other:x") == "other"
