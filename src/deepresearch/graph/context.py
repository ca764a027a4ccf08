"""The runtime context handed to every node: the parts a run is built from."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepresearch.answers.claims import ClaimCheck, claim_check
from deepresearch.answers.dense import Dense, dense_for
from deepresearch.answers.ground import Judge, Pick, Reader, YesNo
from deepresearch.answers.learned import AnswerWeights, confidence_gate
from deepresearch.answers.reader import ChoiceModel, YesNoModel, judge, read, weigh_options, weigh_yes_no
from deepresearch.errors import ResearchCancelledError
from deepresearch.llm.base import ChatModel
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.factory import model_writes, reader_model
from deepresearch.llm.metered import MeteredModel
from deepresearch.llm.wrapper import ModelWrapper
from deepresearch.search.base import SearchBackend
from deepresearch.settings import Settings

if TYPE_CHECKING:
    from concurrent.futures import Future

    from deepresearch.domain import TodoItem
    from deepresearch.fetch.client import PageFetcher
    from deepresearch.graph.planning import Opening
    from deepresearch.notes import NoteStore


@dataclass
class ResearchContext:
    """One run's parts, shared by every task: the model, the search backend and the page fetcher
    (one of each per run, so connections and per-host limits hold across tasks). ``meter`` counts
    the usage of every call ``model`` makes (it sits inside it)."""

    settings: Settings
    model: ChatModel
    search: SearchBackend
    meter: MeteredModel
    notes: NoteStore | None = None
    fetcher: PageFetcher | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    opening: Future[Opening] | None = None
    plan_reviewer: Callable[[list[TodoItem]], Sequence[TodoItem]] | None = None
    task_slots: threading.BoundedSemaphore = field(init=False)
    answer_weights: AnswerWeights | None = field(init=False)
    """How the answer line abstains: the fitted confidence at its shipped threshold, or at
    ANSWER_MIN_CONFIDENCE when that is set."""

    def __post_init__(self) -> None:
        # LangGraph's own max_concurrency also counts its stream reader: at 1 it deadlocks.
        self.task_slots = threading.BoundedSemaphore(self.settings.task_concurrency)
        self.answer_weights = confidence_gate(self.settings.answer_min_confidence)

    def take_opening(self) -> Opening | None:
        """The opening call sent before the graph ran (its result or its error), once; then None."""
        opening, self.opening = self.opening, None
        return opening.result() if opening is not None else None

    def check_cancelled(self) -> None:
        if self.cancelled.is_set():
            raise ResearchCancelledError("the research run was cancelled")

    @property
    def use_model_judge(self) -> bool:
        """Off for the tiny embedded model by default: measured no better than chance at relevance."""
        if self.settings.model_judge is not None:
            return self.settings.model_judge
        return model_writes(self.settings)

    @property
    def answer_dense(self) -> Dense | None:
        """The answer step's sentence meaning (``ANSWER_EMBEDDINGS``): one per process, built on first use."""
        return dense_for(self.settings)

    @property
    def reader(self) -> Reader | None:
        """The model reading code's best lines where the answer line abstains (``ANSWER_READER``),
        or None."""
        mode = self.settings.answer_reader
        if mode == "off" or (mode == "auto" and reader_model(self.settings) is None):
            return None
        model = self.model
        return lambda frame, ranked: read(model, frame, ranked)

    @property
    def answer_judge(self) -> Judge | None:
        """The reader's model judging a reading that code's confidence turns away (its P("yes"),
        read from the first token), where that model gives one (the in-process runtime) and
        ``ANSWER_MIN_CONFIDENCE`` does not ask that code's confidence alone decide; else None."""
        leaf = self._yes_no_model()
        return None if leaf is None else (lambda frame, reading: judge(leaf, frame, reading))

    @property
    def answer_pick(self) -> Pick | None:
        """The reader's model choosing among code's candidates where the reader leaves an open
        question unanswered (its share of each option letter, ``ground.PICK_AT``), where the
        judge is on and its model gives those shares (the in-process runtime); else None."""
        leaf = self._yes_no_model()
        if not isinstance(leaf, ChoiceModel):
            return None
        return lambda frame, readings: weigh_options(leaf, frame, readings)

    @property
    def answer_yes_no(self) -> YesNo | None:
        """The reader's model answering an open yes/no question code leaves unanswered (its
        P("yes") over code's best lines, ``ground.YES_AT``), where the reader is on, its model
        gives that P (the in-process runtime) and ``ANSWER_MIN_CONFIDENCE`` does not ask that
        code's confidence alone decide; else None."""
        leaf = self._yes_no_model()
        return None if leaf is None else (lambda frame, ranked: weigh_yes_no(leaf, frame, ranked))

    @property
    def answer_claims(self) -> ClaimCheck | None:
        """The reader's model settling a yes/no question through the open question it checks
        (:mod:`deepresearch.answers.claims`) where the reader is on and no
        ``ANSWER_MIN_CONFIDENCE`` asks that code's confidence alone decide; its P("yes") weighs a
        place only where the model gives one (the in-process runtime: a server model settles
        dates and people alone); else None."""
        if self.reader is None or self.settings.answer_min_confidence is not None:
            return None
        return claim_check(self.model, self._yes_no_model())

    def _yes_no_model(self) -> YesNoModel | None:
        """The reader's model where the reader is on, it gives P("yes") of its first token, and
        no ``ANSWER_MIN_CONFIDENCE`` asks that code's confidence alone decide."""
        if self.reader is None or self.settings.answer_min_confidence is not None:
            return None
        leaf = self._reader_leaf()
        return leaf if isinstance(leaf, YesNoModel) else None

    def _reader_leaf(self) -> ChatModel:
        """The innermost model that answers the reader's step, through every wrapper."""
        return self.model.leaf_for("reader") if isinstance(self.model, ModelWrapper) else self.model

    @property
    def model_plans(self) -> bool:
        """Whether the model writes the plan (``MODEL_PLANS``); by default off for the bundled
        embedded models, where code plans from the question
        (:func:`~deepresearch.graph.planning.plan_by_code`)."""
        if self.settings.model_plans is not None:
            return self.settings.model_plans
        return model_writes(self.settings)

    def load_reader(self) -> None:
        """Load the reader's in-process model now where code plans and the run's first call is the
        reader's, late in the run: a missing runtime or model file then fails the run at its start,
        with its fix (before, the plan call did), and the load overlaps the graph's import."""
        if self.model_plans or self.reader is None:
            return
        leaf = self._reader_leaf()
        if isinstance(leaf, EmbeddedModel):
            leaf.load()

    @property
    def model_chooses_role(self) -> bool:
        """Off for the tiny embedded model: measured, SmolLM2 under the combined role-and-plan grammar
        ran to its token cap and lost the plan; it plans alone and the role comes from keywords."""
        return model_writes(self.settings)

    @property
    def model_writes_prose(self) -> bool:
        """Whether the model writes summaries and report prose. Off (``auto``) for the tiny
        embedded models: measured, their summaries are generic and their report drafts empty;
        they get extractive summaries and only write the short answer."""
        mode = self.settings.summary_mode
        if mode == "auto":
            return model_writes(self.settings)
        return mode == "model"
