"""The research roles a run can take. Each role's instructions steer planning, queries and the report."""

from __future__ import annotations

from dataclasses import dataclass


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
        ("stock", "market", "invest", "revenue", "price", "economy", "company", "bank", "股票", "投资"),
    ),
    RoleSpec(
        "travel_guide",
        "Travel guide",
        "Focus on places, routes, seasons, costs and practical advice; note what changes by date.",
        ("travel", "trip", "visit", "tourist", "hotel", "itinerary", "旅游", "旅行"),
    ),
    RoleSpec(
        "science_researcher",
        "Science researcher",
        "Focus on findings, methods and evidence strength; distinguish established results from hypotheses.",
        ("science", "study", "research", "species", "disease", "physics", "chemistry", "biology"),
    ),
    RoleSpec(
        "technology_analyst",
        "Technology analyst",
        "Focus on systems, versions, capabilities and trade-offs; compare alternatives concretely.",
        ("software", "technology", "ai", "model", "computer", "algorithm", "技术", "人工智能"),
    ),
    RoleSpec(
        "historian",
        "Historian",
        "Focus on people, places, dates and the order of events; name the sources of each claim.",
        ("history", "war", "century", "born", "founded", "king", "empire", "历史"),
    ),
)

ROLE_TYPES: tuple[str, ...] = tuple(role.type for role in ROLES)


def role_spec(role_type: str) -> RoleSpec:
    return next((r for r in ROLES if r.type == role_type), ROLES[0])


def guess_role(question: str) -> RoleSpec:
    """The code-side choice used when the model's choice is unusable: keyword votes, else general."""
    lowered = question.lower()
    votes = [(sum(k in lowered for k in r.keywords), i) for i, r in enumerate(ROLES)]
    best_votes, best = max(votes)
    return ROLES[best] if best_votes > 0 else ROLES[0]


def role_menu() -> str:
    return "\n".join(f"- {r.type}: {r.label}" for r in ROLES)
