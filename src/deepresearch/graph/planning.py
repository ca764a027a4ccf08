"""Planning by code around one model call: the role and the tasks come from one structured answer
(the opening of a run), and code checks and completes both.

Nothing here imports LangGraph, so a run can send its opening call while the graph is still being
imported (see :func:`deepresearch.agent.research_stream`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from deepresearch.answers.hops import split_hops
from deepresearch.domain import ResearchRole, TodoItem
from deepresearch.lexicon import (
    COMMON_CAPITALISED,
    DANGLING,
    DEMONYM_ENDINGS,
    INNER_NAME_WORD,
    NAMES_JOINED_BY_AND,
    PLACE_NAME_STARTS,
    QUESTION_WORDS,
    TASK_VERBS,
)
from deepresearch.llm.base import ChatModel
from deepresearch.llm.structured import Structured, ask_structured, parse_as
from deepresearch.model_outputs import MAX_PLANNED_TASKS, OpeningOut, PlannedTask, PlanOut, RoleChoice
from deepresearch.prompts.steps import opening_messages, plan_messages
from deepresearch.roles import ROLE_TYPES, ROLES, guess_role, role_spec, role_votes
from deepresearch.text import STOPWORDS, key_stems, key_terms, stem, stems, tokens

MAX_TASKS, MIN_TASKS = MAX_PLANNED_TASKS, 3
DUPLICATE_JACCARD = 0.8
PLAN_PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "anchor": "The question as asked",
        "anchor_intent": "Find passages that answer: {question}",
        "entity_intent": "Who or what is {name}, as the question needs",
        "entity_title": "Who or what is {name}?",
        "rest_intent": "What the question says about {rest}",
        "about": "What do the sources say about {topic}?",
    },
    "fr": {
        "anchor": "La question telle que posée",
        "anchor_intent": "Trouver les passages qui répondent à : {question}",
        "entity_intent": "Qui ou quoi est {name}, pour la question",
        "entity_title": "Qui ou quoi est {name} ?",
        "rest_intent": "Ce que la question dit de {rest}",
        "about": "Que disent les sources de {topic} ?",
    },
    "de": {
        "anchor": "Die Frage, wie gestellt",
        "anchor_intent": "Passagen finden, die beantworten: {question}",
        "entity_intent": "Wer oder was {name} ist, für die Frage",
        "entity_title": "Wer oder was ist {name}?",
        "rest_intent": "Was die Frage über {rest} sagt",
        "about": "Was sagen die Quellen über {topic}?",
    },
    "es": {
        "anchor": "La pregunta tal como se hizo",
        "anchor_intent": "Encontrar pasajes que respondan: {question}",
        "entity_intent": "Quién o qué es {name}, para la pregunta",
        "entity_title": "¿Quién o qué es {name}?",
        "rest_intent": "Lo que la pregunta dice de {rest}",
        "about": "¿Qué dicen las fuentes sobre {topic}?",
    },
    "zh": {
        "anchor": "原问题",
        "anchor_intent": "查找回答该问题的段落：{question}",
        "entity_intent": "问题所需：{name} 是谁或是什么",
        "entity_title": "{name} 是谁或是什么？",
        "rest_intent": "问题关于 {rest} 的内容",
        "about": "来源对 {topic} 有何说法？",
    },
}
"""The titles and intents code writes into a plan, in the question's language (a French report
once read "Tâche 1: The question as asked")."""
ANCHOR_TITLE = PLAN_PHRASES["en"]["anchor"]
"""The title of the task that searches the question's own key terms; its intent is boilerplate."""
ANCHOR_TITLES = frozenset(p["anchor"] for p in PLAN_PHRASES.values())


def _phrases(language: str) -> dict[str, str]:
    return PLAN_PHRASES.get(language, PLAN_PHRASES["en"])


_PLACEHOLDER = re.compile(r"[\[\]{}<>]|\.\.\.|…")
"""A prompt's blank copied as is: ``[specific technology]``, ``{topic}``, ``<entity>``, ``...``."""
_ENTITY = re.compile(rf"\"([^\"]{{3,80}})\"|({NAMES_JOINED_BY_AND})")


PLANNING = "Choosing a role and planning research tasks"
"""The status a run shows when its opening call is sent."""
PLAN_MAX_TOKENS = 400
OPENING_MAX_TOKENS = 480
"""The role (80 tokens) and the plan (400) of the two calls this one replaces."""


@dataclass
class Opening:
    """What the opening call settled: the role, the tasks, and every fallback taken."""

    role: ResearchRole
    tasks: list[TodoItem]
    fallbacks: list[str] = field(default_factory=list)


def open_question(
    model: ChatModel,
    question: str,
    language: str,
    *,
    strip_think: bool = True,
    choose_role: bool = True,
    model_plans: bool = True,
) -> Opening:
    """Role and plan from one structured call (one model call on the critical path, not two).

    When the answer fails the combined schema, the role still comes from it if its role part
    parses, else from the question's keywords; the tasks come from :func:`build_plan`'s fallbacks
    (the question's terms and names). With ``choose_role`` off (the embedded model) the role is
    the keyword guess and the one call asks for the plan alone (see :func:`plan_only`). With
    ``model_plans`` off no call is made where code derives tasks from the question
    (:func:`plan_by_code`)."""
    coded = None if model_plans else plan_by_code(question, language)
    if coded is not None:
        return coded
    if not choose_role:
        return plan_only(model, question, language, strip_think=strip_think)
    result = ask_structured(
        model,
        opening_messages(question, language),
        OpeningOut,
        step="plan",
        max_tokens=OPENING_MAX_TOKENS,
        strip_think=strip_think,
    )
    value = result.value
    choice = RoleChoice(role=value.role, focus=value.focus) if value else _salvaged_role(result, strip_think)
    role, fallbacks = resolve_role(choice, question), []
    if role.is_fallback:
        fallbacks.append(_role_note(choice, result.error, role))
    tasks, plan_notes = build_plan(question, language, value.tasks if value else [], result.error)
    return Opening(role=role, tasks=tasks, fallbacks=[*fallbacks, *plan_notes])


def plan_by_code(question: str, language: str) -> Opening | None:
    """The role from the question's keywords and the tasks code derives from the question (the
    question as asked, its names, its two hops), no model call; None where code derives none (a
    Chinese question, a question of stopwords), which the model then plans. The bundled embedded
    models plan this way: measured, SmolLM2's tasks repeated the question, and this plan gave the
    same answers on 90 dev questions (docs/BENCHMARKS.md)."""
    derived = derived_tasks(question, language)
    return Opening(role=keyword_role(question), tasks=derived) if derived else None


def derived_tasks(question: str, language: str) -> list[TodoItem]:
    """The tasks code derives from the question alone (the question as asked, its names, its two
    hops), numbered; none for a Chinese question or one with nothing to derive from."""
    if language == "zh":
        return []
    derived = _top_up(question, _with_anchor(question, [], language), language)
    titled = _readable_titles(question, derived[:MAX_TASKS], language)
    return [t.model_copy(update={"id": i + 1}) for i, t in enumerate(titled)]


def keyword_role(question: str) -> ResearchRole:
    """The role whose keywords the question holds (:func:`~deepresearch.roles.guess_role`)."""
    spec = guess_role(question)
    return ResearchRole(type=spec.type, label=spec.label, instructions=spec.instructions)


def plan_only(model: ChatModel, question: str, language: str, *, strip_think: bool = True) -> Opening:
    """The role from the question's keywords and the plan from the model. Measured with SmolLM2-135M:
    under the combined role-and-plan grammar it wrote to the 480-token cap twice (40 s) and the plan
    failed; the plan alone parses, and its role choice mostly gave way to the keywords anyway."""
    role = keyword_role(question)
    result = ask_structured(
        model,
        plan_messages(question, role, language),
        PlanOut,
        step="plan",
        max_tokens=PLAN_MAX_TOKENS,
        strip_think=strip_think,
    )
    tasks, fallbacks = build_plan(
        question, language, result.value.tasks if result.value else [], result.error
    )
    return Opening(role=role, tasks=tasks, fallbacks=fallbacks)


def _salvaged_role(result: Structured[OpeningOut], strip_think: bool) -> RoleChoice | None:
    """The role part of an answer whose tasks failed the schema, when it parses on its own."""
    for text in reversed(result.raw):
        try:
            return parse_as(RoleChoice, text, strip_think=strip_think)
        except ValueError:
            continue
    return None


def build_plan(
    question: str, language: str, proposed: list[PlannedTask], error: str | None = None
) -> tuple[list[TodoItem], list[str]]:
    """Keep the model's usable tasks; with too few (or none), add tasks code derives from the
    question (its terms, its names); with nothing at all, the single fallback task. One task
    always searches the question as asked."""
    kept, dropped = _usable(question, proposed)
    rejected = sum(dropped.values())
    why = ", ".join(f"{n} {reason}" for reason, n in dropped.items())
    if not kept:
        reason = error or (f"{rejected} proposed task(s) unusable ({why})" if rejected else "empty plan")
        derived = derived_tasks(question, language)
        if not derived:
            return [fallback_task(question, language)], [f"plan: {reason}; using the fallback task"]
        fallbacks = [f"plan: {reason}; planned from the question's terms and names"]
        return [t.model_copy(update={"is_fallback": True}) for t in derived], fallbacks
    fallbacks = [f"plan: dropped {rejected} unusable task(s) ({why})"] if rejected else []
    tasks = _with_anchor(question, kept, language)
    if len(tasks) < MIN_TASKS:
        tasks = _top_up(question, tasks, language)
        fallbacks.append("plan: added tasks derived from the question's names")
    titled = _readable_titles(question, tasks[:MAX_TASKS], language)
    return [t.model_copy(update={"id": i + 1}) for i, t in enumerate(titled)], fallbacks


FALLBACK_TASKS = {
    "zh": ("背景梳理", "梳理与“{q}”相关的基础背景与最新进展", "{q} 最新进展"),
    "en": ("background", "Background and latest developments on: {q}", "{q} latest developments"),
    "de": ("Hintergrund", "Hintergrund und neueste Entwicklungen zu: {q}", "{q} neueste Entwicklungen"),
    "fr": ("contexte", "Contexte et derniers développements sur : {q}", "{q} derniers développements"),
    "es": ("contexto", "Contexto y últimas novedades sobre: {q}", "{q} últimas novedades"),
}


def fallback_task(question: str, language: str) -> TodoItem:
    title, intent, query = FALLBACK_TASKS.get(language, FALLBACK_TASKS["en"])
    return TodoItem(
        id=1,
        title=title,
        intent=intent.format(q=question),
        query=query.format(q=question),
        is_fallback=True,
    )


def normalize_query(query: str) -> str:
    return " ".join(tokens(query))


def _usable(question: str, proposed: list[PlannedTask]) -> tuple[list[TodoItem], Counter[str]]:
    """The proposed tasks worth running, and why the others were dropped: off topic, a
    placeholder, a fragment (:func:`is_fragment`) or a near-duplicate of a task kept before it
    (:func:`near_duplicate`)."""
    question_stems = set(key_stems(question))
    kept: list[TodoItem] = []
    dropped: Counter[str] = Counter()
    for item in proposed:
        query = " ".join(item.query.split())[:200].strip(" \"'")
        reason = _flaw(query, question_stems, kept)
        if reason:
            dropped[reason] += 1
            continue
        title = " ".join(item.title.split())[:80]
        intent = " ".join(item.intent.split())[:300] or title
        kept.append(TodoItem(id=len(kept) + 1, title=title, intent=intent, query=query))
    return kept, dropped


def _readable_titles(question: str, tasks: list[TodoItem], language: str = "en") -> list[TodoItem]:
    """``tasks`` with every title a research question a reader can tell apart: a title that
    repeats the question (:func:`repeats_question`) is the anchor title (:data:`PLAN_PHRASES`) on
    the task that searches the question, and elsewhere becomes the task's own question
    (:func:`_own_question`); so does a title that is a fragment ("EP", "Australia": fewer than
    two content terms, or cut short, see :func:`is_fragment`) or that asserts what the question
    does not say (:func:`asserts_more`), and a title an earlier task already has (a task that
    still repeats an earlier title is no task of its own)."""
    whole = set(key_stems(question))
    out: list[TodoItem] = []
    for task in tasks:
        title = task.title
        if repeats_question(title, question):
            searches_it = _jaccard(set(key_stems(task.query)), whole) >= DUPLICATE_JACCARD
            title = _phrases(language)["anchor"] if searches_it else _own_question(task, question, language)
        elif (
            is_fragment(title, min_terms=1 if title.endswith("?") else 2)
            or asserts_more(title, f"{question} {task.query}")
            or (language == "en" and is_label(title))
        ):
            title = _own_question(task, question, language)
        if _title_key(title) in {_title_key(t.title) for t in out}:
            title = _phrases(language)["about"].format(topic=_title_of(task.query))
        if _title_key(title) not in {_title_key(t.title) for t in out}:
            out.append(task.model_copy(update={"title": title}))
    return out


def repeats_question(title: str, question: str) -> bool:
    """Whether a task's title is the question again: word for word, or holding every key stem of
    it (the question without its second ask is still the question; its bridge, which leaves out
    the word asked of it, is not)."""
    if _title_key(title) == _title_key(question):
        return True
    asked = set(key_stems(question))
    return bool(asked) and asked <= set(key_stems(title))


def is_label(title: str) -> bool:
    """Whether an English task title names a topic instead of asking about it: fewer than
    :data:`MIN_TITLE_WORDS` words, or no question word and no verb (:data:`~deepresearch.lexicon.TASK_VERBS`,
    or a word ending in -ed): "1940s film about the glacier crossing" is a label, "Who filmed the
    glacier crossing?" a task."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", title)]
    if len(words) < MIN_TITLE_WORDS:
        return True
    return not any(w in QUESTION_WORDS or w in TASK_VERBS or (w.endswith("ed") and len(w) > 4) for w in words)


MIN_TITLE_WORDS = 4
"""A task's intent stands as its title only with at least this many words: fewer is a label."""


def _own_question(task: TodoItem, question: str, language: str) -> str:
    """The task's intent when it reads as one (words enough, no fragment, not the question
    again, asserting nothing the question and query do not hold), else "What do the sources
    say about <query>?"."""
    intent = " ".join(task.intent.split())
    short = is_label(intent) if language == "en" else len(intent.split()) < MIN_TITLE_WORDS
    usable = not short and not is_fragment(intent)
    known = f"{question} {task.query}"
    if usable and not repeats_question(intent, question) and not asserts_more(intent, known):
        return _title_of(intent, 120)
    return _phrases(language)["about"].format(topic=_title_of(task.query))


def _title_key(title: str) -> str:
    return " ".join(tokens(title))


def has_placeholder(query: str) -> bool:
    """True when ``query`` holds a template's blank (brackets, braces, angle brackets, an ellipsis):
    tiny models copy the prompt's example queries verbatim, placeholders included."""
    return bool(_PLACEHOLDER.search(query))


def _flaw(query: str, question_stems: set[str], kept: list[TodoItem]) -> str | None:
    terms = set(key_stems(query))
    if is_fragment(query):
        return "fragment"
    if has_placeholder(query):
        return "placeholder"
    if question_stems and not question_stems & terms:
        return "off topic"
    if _repeats(terms, [set(key_stems(t.query)) for t in kept], question_stems):
        return "near-duplicate"
    return None


def is_fragment(text: str, *, min_terms: int = 2) -> bool:
    """Whether a task's query (or, with ``min_terms=1``, its title) is a fragment, not a search.

    Fragments have fewer than ``min_terms`` content terms ("Which U.S.", "If Borra"), or end in a
    word that cannot end a phrase (an article, a preposition, a conjunction: "History of the") or
    in the capitalised first word of a longer name ("Edda Lindqvist died in New"). A question mark
    ends a question, not a cut ("Which choir did she sing with?").
    """
    if len(key_terms(text)) < min_terms:
        return True
    if text.rstrip().endswith("?"):
        return False
    last = text.split()[-1].strip(".,;:!\"'()")
    return last.lower() in DANGLING or (last[:1].isupper() and last.lower().rstrip(".") in PLACE_NAME_STARTS)


def near_duplicate(a: set[str], b: set[str]) -> bool:
    """Two tasks' key stems ask the same thing: Jaccard ≥ 0.8, or one set inside the other."""
    if not a or not b:
        return a == b
    return len(a & b) / len(a | b) >= DUPLICATE_JACCARD or a <= b or b <= a


def asserts_more(title: str, known: str) -> bool:
    """Whether a model's task title states a number or a name that ``known`` (the question and the
    task's query) does not hold: a title is a label, and a model once titled a task with the year
    it made up for the answer ("… construite en 1989"). Checked like the model's other text
    (:func:`deepresearch.report_markdown.stated_prose`), against what the plan knows."""
    have = set(stems(known))
    digits = set(re.findall(r"\d+", title)) - set(re.findall(r"\d+", known))
    names = {stem(n) for n in INNER_NAME_WORD.findall(title)}
    return bool(digits) or not names <= have


def _with_anchor(question: str, tasks: list[TodoItem], language: str = "en") -> list[TodoItem]:
    """The question's own key terms as the first task, unless a task already searches nearly
    that (Jaccard ≥ 0.8; a narrower task is a sub-question, not a repeat of the whole)."""
    anchor_query = " ".join(key_terms(question)) or question
    anchor_stems = set(key_stems(anchor_query))
    if any(_jaccard(anchor_stems, set(key_stems(t.query))) >= DUPLICATE_JACCARD for t in tasks):
        return tasks
    phrases = _phrases(language)
    anchor = TodoItem(
        id=0,
        title=phrases["anchor"],
        intent=phrases["anchor_intent"].format(question=question),
        query=anchor_query,
    )
    return [anchor, *tasks][:MAX_TASKS]


def _top_up(question: str, tasks: list[TodoItem], language: str = "en") -> list[TodoItem]:
    """Add the question's bridge and hop as tasks (:func:`hop_tasks`), then entity tasks, then one
    task on the question's terms no query covers yet; never a fragment or a near-duplicate (a
    narrower part of the whole question is no repeat of it). Every title is a question."""
    anchor = set(key_stems(question))
    have = [anchor, *(set(key_stems(t.query)) for t in tasks)]
    extra = hop_tasks(question, have) if language == "en" else []
    have.extend(set(key_stems(t.query)) for t in extra)
    entities = question_entities(question)
    phrases = _phrases(language)
    for name in entities:
        query = entity_query(name, question, entities) or ""
        terms = set(key_stems(query))
        if query and len(tasks) + len(extra) < MIN_TASKS and not _repeats(terms, have, anchor):
            have.append(terms)
            title, intent = (
                phrases["entity_title"].format(name=name),
                phrases["entity_intent"].format(name=name),
            )
            extra.append(TodoItem(id=0, title=title, intent=intent, query=query))
    covered = set().union(*(h for h in have if _jaccard(h, anchor) < DUPLICATE_JACCARD))
    rest = " ".join(t for t in key_terms(question) if stem(t) not in covered)
    fresh = not _repeats(set(key_stems(rest)), have, anchor)
    if fresh and len(key_terms(rest)) >= MIN_REST_TERMS and len(tasks) + len(extra) < MIN_TASKS:
        title, intent = phrases["about"].format(topic=rest), phrases["rest_intent"].format(rest=rest)
        extra.append(TodoItem(id=0, title=title, intent=intent, query=rest))
    return [*tasks, *extra]


def hop_tasks(question: str, have: list[set[str]]) -> list[TodoItem]:
    """The bridge, then the hop, of a two-hop question (:func:`~deepresearch.answers.hops.split_hops`),
    each a task titled by its own question: "Who was the first painter to cross …?" searches the
    description without the word asked of it (a search for the whole question finds the tutor's
    peers, not the painter), then "Who was the tutor of that painter?" (its query the hop's own
    words, a name of the description only where they are too few: the painter is not known yet,
    and the next round's bridge queries search it). A task whose query another task already
    runs word for word, or that is a fragment, is left out."""
    hops = split_hops(question)
    if hops is None:
        return []
    hop = key_terms(hops.hop)
    if is_fragment(" ".join(hop)):
        hop += question_entities(hops.described)[:1]
    parts = [(hops.bridge, key_terms(hops.described)), (hops.hop, hop)]
    out: list[TodoItem] = []
    for title, terms in parts:
        query = " ".join(dict.fromkeys(terms))
        stems_ = set(key_stems(query))
        if is_fragment(query) or any(stems_ == h for h in have):
            continue
        have = [*have, stems_]
        out.append(TodoItem(id=0, title=_title_of(title, 120), intent=title, query=query))
    return out


MIN_REST_TERMS = 3
"""The question's leftover terms make a task of their own only with at least this many: two
("year constructed") are a fragment of the question, no search and no title."""


def _repeats(terms: set[str], have: list[set[str]], question: set[str]) -> bool:
    """Whether a task with key stems ``terms`` repeats one of ``have``. A task that searches the
    whole question (Jaccard ≥ 0.8 with it) is repeated only by another such task: a narrower
    task is a part of the question, not a repeat of it."""
    for other in have:
        whole = _jaccard(other, question) >= DUPLICATE_JACCARD
        if _jaccard(terms, other) >= DUPLICATE_JACCARD or (not whole and near_duplicate(terms, other)):
            return True
    return False


def entity_query(name: str, question: str, entities: list[str]) -> str | None:
    """The search for one name of the question: the name itself when it holds two content terms;
    a one-word name gets the question's first term that is no name and no ``-ed``/``-ing`` form
    ("Borra" → "Borra goblin", "Eskerby" → "Eskerby film"), since one word alone is a fragment.
    ``None`` when nothing fits."""
    if not is_fragment(name):
        return name
    named = {stem(t) for entity in entities for t in key_terms(entity)}
    context = next(
        (t for t in key_terms(question) if stem(t) not in named and not t.endswith(("ed", "ing"))), None
    )
    query = f"{name} {context}" if context else ""
    return query if query and not is_fragment(query) else None


def question_entities(question: str) -> list[str]:
    """Quoted titles and capitalised names in the question, longest first.

    Leading stopwords are not part of a name ("Which U.S. state" → "U.S.", "If Borra" → "Borra"),
    names joined by "and" are two names, a possessive ends a name, and what is left must hold a
    content term. A lone capitalised word that opens the question ("Describe …") is no name.
    """
    found: dict[str, None] = {}
    for match in _ENTITY.finditer(question):
        quoted = match.group(1) is not None
        parts = [match.group(1)] if quoted else re.split(r"\s+and\s+", match.group(2) or "")
        for index, part in enumerate(parts):
            name, trimmed = _trim_name(part.strip(), quoted)
            opens = match.start() == 0 and index == 0 and not trimmed and " " not in name
            if name and key_terms(name) and not opens:
                found.setdefault(name, None)
    return sorted(found, key=len, reverse=True)


def _trim_name(name: str, quoted: bool) -> tuple[str, bool]:
    """``name`` without leading stopwords, what follows a full stop ("OBE. Does" → "OBE.") and a
    trailing possessive (``""`` for a lone month, weekday or nationality: no name to research);
    whether leading words were cut."""
    if quoted:
        return name, False
    words_ = name.split()
    start, end = 0, len(words_)
    while start < end - 1 and words_[start].lower() in STOPWORDS:
        start += 1
    end = next((i for i in range(start + 1, end) if _sentence_break(words_[i - 1], words_[i])), end)
    trimmed = re.sub(r"['’]s?$", "", " ".join(words_[start:end])).rstrip(",;:")
    if trimmed.endswith(".") and trimmed.split()[-1].count(".") == 1:
        trimmed = trimmed[:-1]
    if trimmed.lower() in STOPWORDS or _is_common_word(trimmed):
        return "", True
    return trimmed, start > 0


def _title_of(query: str, limit: int = 60) -> str:
    """A title cut from a query at a word boundary, without the words that would leave it dangling."""
    if len(query) <= limit:
        return query
    words_ = query[:limit].rsplit(" ", 1)[0].split()
    while len(words_) > 1 and (words_[-1].lower().strip(",;:") in STOPWORDS | DANGLING):
        words_.pop()
    return " ".join(words_).rstrip(",;:") + "…"


def _sentence_break(before: str, word: str) -> bool:
    return before.endswith(".") and word.lower() in STOPWORDS


def _is_common_word(name: str) -> bool:
    lowered = name.lower()
    if " " in lowered:
        return False
    return lowered in COMMON_CAPITALISED or lowered.endswith(DEMONYM_ENDINGS)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def resolve_role(choice: RoleChoice | None, question: str) -> ResearchRole:
    """The model's role, unless it is unusable or no word of the question supports it.

    A specialised role (travel guide, finance analyst, …) stands only with at least one of its
    keywords in the question; otherwise the keyword guess wins — another role with votes, else the
    general researcher (a history question is not a travel guide's, nor a mythology question a
    finance analyst's, whatever a 135M model says). The general researcher fits every question,
    so the model's choice of it stands.
    """
    if choice is not None and choice.role in ROLE_TYPES:
        spec = role_spec(choice.role)
        if spec is not ROLES[0] and role_votes(question)[spec.type] == 0:
            return _keyword_role(question)
        focus = " ".join(choice.focus.split())[:200]
        instructions = f"{spec.instructions} {focus}".strip()
        return ResearchRole(type=spec.type, label=spec.label, instructions=instructions)
    return _keyword_role(question)


def _keyword_role(question: str) -> ResearchRole:
    spec = guess_role(question)
    return ResearchRole(type=spec.type, label=spec.label, instructions=spec.instructions, is_fallback=True)


def _role_note(choice: RoleChoice | None, error: str | None, role: ResearchRole) -> str:
    if choice is not None and choice.role in ROLE_TYPES:
        return f"role: no word of the question fits the model's {choice.role}; chose {role.type} by keywords"
    return f"role: {error or 'unknown role'}; chose {role.type} by keywords"
