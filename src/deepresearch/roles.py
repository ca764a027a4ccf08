"""The research roles a run can take. Each role's instructions steer planning, queries and the report."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.text import is_cjk, split_words


@dataclass(frozen=True)
class RoleSpec:
    type: str
    label: str
    instructions: str
    keywords: tuple[str, ...]


ROLES: tuple[RoleSpec, ...] = (
    RoleSpec(
        "general_researcher",
        "General researcher",
        "Answer the question directly. Find the specific people, places, works and dates it names, "
        "connect the facts step by step, and separate what sources state from what you infer.",
        (),
    ),
    RoleSpec(
        "finance_analyst",
        "Finance analyst",
        "Focus on figures, dates, companies and markets; state numbers with their period and "
        "source; flag forecasts and risks separately from reported facts.",
        (
            "stock",
            "stock market",
            "shares",
            "invest",
            "investor",
            "investment",
            "revenue",
            "profit",
            "earnings",
            "price",
            "economy",
            "economic",
            "inflation",
            "interest rate",
            "gdp",
            "banking",
            "finance",
            "financial",
            "valuation",
            "dividend",
            "ipo",
            "market cap",
            "股票",
            "投资",
            "经济",
        ),
    ),
    RoleSpec(
        "travel_guide",
        "Travel guide",
        "Focus on places, routes, seasons, costs and practical advice; note what changes by date.",
        (
            "travel",
            "trip",
            "visit",
            "visitor",
            "tourist",
            "tourism",
            "hotel",
            "itinerary",
            "vacation",
            "holiday",
            "sightseeing",
            "flight",
            "resort",
            "things to do",
            "best time to",
            "旅游",
            "旅行",
        ),
    ),
    RoleSpec(
        "science_researcher",
        "Science researcher",
        "Focus on findings, methods and evidence strength; distinguish established results from hypotheses.",
        (
            "science",
            "scientific",
            "scientist",
            "study",
            "experiment",
            "species",
            "genus",
            "plant",
            "animal",
            "disease",
            "physics",
            "chemistry",
            "biology",
            "medicine",
            "medical",
            "gene",
            "genetic",
            "planet",
            "astronomy",
            "climate",
            "molecule",
            "科学",
            "研究",
        ),
    ),
    RoleSpec(
        "technology_analyst",
        "Technology analyst",
        "Focus on systems, versions, capabilities and trade-offs; compare alternatives concretely.",
        (
            "software",
            "technology",
            "ai",
            "artificial intelligence",
            "machine learning",
            "computer",
            "algorithm",
            "programming",
            "internet",
            "smartphone",
            "semiconductor",
            "robot",
            "database",
            "技术",
            "人工智能",
        ),
    ),
    RoleSpec(
        "historian",
        "Historian",
        "Focus on people, places, dates and the order of events; name the sources of each claim.",
        (
            "history",
            "historical",
            "historian",
            "war",
            "battle",
            "century",
            "born",
            "birthplace",
            "died",
            "death",
            "founded",
            "founder",
            "built",
            "constructed",
            "king",
            "queen",
            "emperor",
            "empire",
            "dynasty",
            "reign",
            "ruled",
            "ancient",
            "medieval",
            "revolution",
            "treaty",
            "colony",
            "colonial",
            "monarch",
            "city where",
            "town where",
            "历史",
        ),
    ),
)

ROLE_TYPES: tuple[str, ...] = tuple(role.type for role in ROLES)


def role_spec(role_type: str) -> RoleSpec:
    return next((r for r in ROLES if r.type == role_type), ROLES[0])


def role_votes(question: str) -> dict[str, int]:
    """Keyword votes per role type: how many of a role's keywords the question uses.

    Keywords match whole words or phrases (or their plural with ``s``/``es``), never parts of words:
    "king" does not vote for the historian in "making", nor "ai" for technology in "said". Names
    do not vote either: capitalised words after the first ("Mark King", "Pizza Hut"). CJK keywords
    match anywhere in the question.
    """
    plain = [w for i, w in enumerate(question.split()) if i == 0 or not w[:1].isupper()]
    flat = f" {' '.join(split_words(' '.join(plain)))} "
    return {r.type: sum(_mentions(flat, question, k) for k in r.keywords) for r in ROLES}


def guess_role(question: str) -> RoleSpec:
    """The code-side choice: the role with most keyword votes (the first listed on a tie), else
    the general researcher. Used when the model's choice is unusable or has no keyword support."""
    votes = role_votes(question)
    best = max(ROLES, key=lambda r: votes[r.type])
    return best if votes[best.type] > 0 else ROLES[0]


def role_menu() -> str:
    return "\n".join(f"- {r.type}: {r.label}" for r in ROLES)


def _mentions(flat_words: str, question: str, keyword: str) -> bool:
    if is_cjk(keyword):
        return keyword in question
    return any(f" {keyword}{plural} " in flat_words for plural in ("", "s", "es"))
