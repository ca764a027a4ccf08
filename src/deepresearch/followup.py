"""Follow-up questions on a finished run, answered from the run's own sources.

:func:`ask_followup` reads the run folder's ``sources.json`` (the sources the run read, each
with the number its report gives it), grounds an answer in them as the report's answer line is
grounded (:func:`deepresearch.answers.ground.ground_answer`: a span of a sentence a source states,
or nothing), and cites that source by the report's own number — the sources the report cites are
asked first, then the others the run read. A follow-up that points back at the report ("Who built
it?") is read with the report's subject in place of ``it``/``its``/``they``/``them``: the title of
the source that holds the report's answer (else of its first reference); ``he``/``she``/``his``/``her``
mean the person the report answered when it asked "who" (else that subject). When no sentence of those
sources answers and a ``researcher`` is given (the CLI's default), the follow-up is researched as a
new round: the sources it reads that the run had not are added after the run's own, numbered on
from its last number (no old citation changes), ``sources.json`` keeps them, the answer is grounded
in the whole set, and ``report.md`` grows by a "Follow-up" section with the new references. Without
one, or when the new round does not answer either, it says so: "The sources read do not answer: …".
Each follow-up is appended to the run folder, as one line of ``followups.jsonl`` and a section of
``followups.md``, so a conversation on a run survives a restart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ValidationError

from deepresearch.answers.dense import Dense
from deepresearch.answers.ground import abstention_text, ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.question import frame_question
from deepresearch.citations import Source, link_destination
from deepresearch.errors import ConfigurationError, DeepResearchError
from deepresearch.lexicon import PERSONAL_PRONOUNS
from deepresearch.result import NumberedSource
from deepresearch.runs import RUN_FILE, RunFolder, RunStore
from deepresearch.settings import Settings
from deepresearch.untrusted import markdown_literal

FOLLOWUPS_JSONL = "followups.jsonl"
FOLLOWUPS_MD = "followups.md"
ANSWERED = ("grounded", "sentence")
MAX_FOLLOWUP_CHARS = 2000

Researcher = Callable[[str], Sequence[Source]]
"""Researches a follow-up the run's sources do not answer: the sources a new round read."""


class FollowUp(BaseModel):
    """One follow-up: the question, the answer line, and the source (by the report's number)
    whose sentence states it; ``answered`` is False when the run's sources do not answer."""

    question: str
    read_as: str = ""
    answered: bool
    answer: str
    source_number: int | None = None
    source_title: str = ""
    source_url: str = ""
    sentence: str = ""
    asked_at: str = ""
    researched: bool = False
    new_sources: list[NumberedSource] = []

    def markdown(self) -> str:
        """The follow-up as Markdown: the question, the cited answer and the sentence it rests on.
        Everything quoted from the sources or the asker does nothing in a Markdown viewer."""
        lines = [f"### {markdown_literal(self.question)}", ""]
        if not self.answered:
            lines.append(markdown_literal(self.answer))
        else:
            lines.append(f"**Answer:** {markdown_literal(self.answer)} [{self.source_number}]")
            if self.sentence:
                lines += ["", f"*From:* “{markdown_literal(self.sentence)}” [{self.source_number}]"]
        if self.researched:
            lines += ["", f"*Researched as a new round: {len(self.new_sources)} new source(s) read.*"]
            lines += [""] + [_reference(s) for s in self.new_sources] if self.new_sources else []
        return "\n".join(lines)


def _reference(source: NumberedSource) -> str:
    return (
        f"{source.number}. [{markdown_literal(source.title or source.url)}]({link_destination(source.url)})"
    )


def find_run(run: str, settings: Settings) -> RunFolder:
    """The run folder ``run`` names: a folder path, or a run id under ``RUNS_WORKSPACE``."""
    path = Path(run).expanduser()
    if (path / RUN_FILE).is_file():
        return RunFolder(path)
    return RunStore(settings.resolved_runs_workspace).get(run)


def run_sources(folder: RunFolder) -> list[NumberedSource]:
    """The sources a finished run read, with their report numbers; DeepResearchError when the run
    has none recorded (it failed, or it is still running)."""
    path = folder.file("sources.json")
    if not path.is_file():
        raise DeepResearchError(
            f"run {folder.run_id} has no sources.json: it did not finish (see its error.json); "
            "ask the follow-up on a finished run"
        )
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
        return [NumberedSource.model_validate(record) for record in records]
    except (ValueError, ValidationError, TypeError) as exc:
        raise DeepResearchError(f"run {folder.run_id}: sources.json cannot be read ({exc})") from exc


def ask_followup(
    folder: RunFolder, question: str, researcher: Researcher | None = None, dense: Dense | None = None
) -> FollowUp:
    """Answer ``question`` from the run's own sources, cite the report's number, research it as a
    new round when they do not answer and ``researcher`` is given, and append it to the run folder
    (see the module docstring). ``dense`` is the sentence meaning the report's answer line ranked
    with (:func:`~deepresearch.answers.dense.dense_for`), so that a follow-up reads as it did."""
    question = " ".join(question.split())
    if not question:
        raise ConfigurationError("the follow-up question is empty: ask something about the report")
    if len(question) > MAX_FOLLOWUP_CHARS:
        raise ConfigurationError(f"the follow-up question is longer than {MAX_FOLLOWUP_CHARS} characters")
    sources, record = run_sources(folder), run_record(folder)
    refers = Referents(report_subject(record, sources), report_person(record, sources))
    cited = cited_ids(record)
    followup = answer_from(sources, question, refers=refers, cited=cited, dense=dense)
    if not followup.answered and researcher is not None:
        added = numbered_after(sources, researcher(followup.read_as))
        if added:
            folder.write_json("sources.json", [s.model_dump() for s in [*sources, *added]])
        followup = answer_from([*sources, *added], question, refers=refers, cited=cited, dense=dense)
        followup = followup.model_copy(update={"researched": True, "new_sources": added})
        _grow_report(folder, followup)
    folder.append_jsonl(FOLLOWUPS_JSONL, followup.model_dump())
    _append_markdown(folder, followup)
    return followup


def numbered_after(sources: Sequence[NumberedSource], found: Sequence[Source]) -> list[NumberedSource]:
    """The sources of ``found`` the run had not read (by URL), numbered on from its last number
    and given registry ids after its last id, so that no old citation changes."""
    seen = {s.url for s in sources}
    number = max((s.number for s in sources), default=0)
    ident = max((s.id for s in sources), default=0)
    added: list[NumberedSource] = []
    for source in found:
        if source.url in seen:
            continue
        seen.add(source.url)
        number, ident = number + 1, ident + 1
        fields = source.model_dump(exclude={"id", "number", "kind"})
        added.append(NumberedSource(**fields, id=ident, number=number))
    return added


def _grow_report(folder: RunFolder, followup: FollowUp) -> None:
    """The run's report with the researched follow-up appended, old numbers untouched."""
    path = folder.file("report.md")
    before = path.read_text(encoding="utf-8") if path.is_file() else ""
    folder.write_text("report.md", f"{before.rstrip()}\n\n## Follow-up\n\n{followup.markdown()}\n")


def answer_from(
    sources: list[NumberedSource],
    question: str,
    *,
    refers: Referents | None = None,
    cited: AbstractSet[int] = frozenset(),
    dense: Dense | None = None,
) -> FollowUp:
    """The grounded answer to ``question`` (its pointers read by ``refers``) from ``sources``:
    the report's cited ones first, then the rest; or the statement that they do not answer it."""
    asked_at = datetime.now(timezone.utc).isoformat()
    read_as = resolve_references(question, refers or Referents())
    first = [s for s in sources if s.id in cited]
    gate = confidence_gate(None)
    for pool in (first, sources) if first else (sources,):
        grounded = ground_answer(read_as, pool, weights=gate, dense=dense)
        source = next((s for s in pool if s.id == grounded.source_id), None)
        if grounded.status in ANSWERED and source is not None:
            return FollowUp(
                question=question,
                read_as=read_as,
                answered=True,
                answer=grounded.text,
                source_number=source.number,
                source_title=source.title,
                source_url=source.url,
                sentence=grounded.sentence,
                asked_at=asked_at,
            )
    return FollowUp(
        question=question,
        read_as=read_as,
        answered=False,
        answer=abstention_text(question),
        asked_at=asked_at,
    )


class Referents(NamedTuple):
    """Who a follow-up's pointers mean: ``thing`` for it/its/they/them (the report's subject),
    ``person`` for he/she/him/her/his (the person the report answered, else its subject)."""

    thing: str = ""
    person: str = ""


_POINTERS = re.compile(
    rf"\b(its|it|they|them|{'|'.join(sorted(PERSONAL_PRONOUNS))})\b(\s+\w+)?",
    re.IGNORECASE,
)
_POSSESSIVE = frozenset({"its", "his", "hers"})
# After these, "her" is the person herself ("who married her in 1932"), not "her husband".
_NOT_OWNED = frozenset(
    [
        "and",
        "or",
        "in",
        "on",
        "at",
        "of",
        "to",
        "for",
        "from",
        "by",
        "with",
        "before",
        "after",
        "when",
        "while",
        "during",
        "as",
        "than",
        "was",
        "is",
        "did",
    ]
)


def resolve_references(question: str, refers: Referents) -> str:
    """``question`` with it/its/they/them read as ``refers.thing`` and he/she/him/her/his as
    ``refers.person`` (the thing when no person is known); a pointer with no referent stays."""

    def named(match: re.Match[str]) -> str:
        word, after = match.group(1), match.group(2) or ""
        lower = word.lower()
        name = (refers.person or refers.thing) if lower in PERSONAL_PRONOUNS else refers.thing
        if not name:
            return match.group(0)
        owned = lower in _POSSESSIVE or (
            lower == "her" and after.strip() != "" and after.strip().lower() not in _NOT_OWNED
        )
        return f"{name}'s{after}" if owned else f"{name}{after}"

    return _POINTERS.sub(named, question)


def run_record(folder: RunFolder) -> dict[str, Any]:
    """The run's ``result.json`` as a mapping ({} when it is missing or unreadable)."""
    path = folder.file("result.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def report_subject(record: dict[str, Any], sources: list[NumberedSource]) -> str:
    """The title of the source holding the run's answer, else of its first reference; "" if none."""
    number = record.get("answer_source_number")
    by_number = {s.number: s for s in sources}
    chosen = (by_number.get(number) if isinstance(number, int) else None) or by_number.get(1)
    return chosen.title if chosen is not None else ""


def report_person(record: dict[str, Any], sources: list[NumberedSource]) -> str:
    """The person the report answered ("Who was X married to?" → the spouse), else the report's
    subject: who "she" or "his" most likely means in a follow-up."""
    answer = record.get("answer")
    if (
        record.get("answer_status") == "grounded"
        and isinstance(answer, str)
        and frame_question(str(record.get("question", ""))).kind == "person"
    ):
        return answer
    return report_subject(record, sources)


def cited_ids(record: dict[str, Any]) -> set[int]:
    """The registry ids of the sources the report cites (``cited_source_ids`` of the result)."""
    ids = record.get("cited_source_ids")
    return {i for i in ids if isinstance(i, int)} if isinstance(ids, list) else set()


def followups(folder: RunFolder) -> list[FollowUp]:
    """The follow-ups asked on the run so far, oldest first."""
    path = folder.file(FOLLOWUPS_JSONL)
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [FollowUp.model_validate_json(line) for line in lines if line.strip()]


def _append_markdown(folder: RunFolder, followup: FollowUp) -> None:
    path = folder.file(FOLLOWUPS_MD)
    before = path.read_text(encoding="utf-8") if path.is_file() else "## Follow-up questions\n"
    folder.write_text(FOLLOWUPS_MD, f"{before.rstrip()}\n\n{followup.markdown()}\n")
