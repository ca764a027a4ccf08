"""The lexicon's lists and name shapes: what their callers rely on."""

from __future__ import annotations

from deepresearch import lexicon
from deepresearch.text import STOPWORDS


def test_purpose_lists_are_parts_of_the_one_stopword_list_plus_named_extras() -> None:
    def extras(words: frozenset[str]) -> set[str]:
        return set(words - STOPWORDS)

    assert extras(lexicon.NAME_LEADING) == {
        "although",
        "born",
        "died",
        "following",
        "however",
        "later",
        "since",
    }
    assert extras(lexicon.NOT_A_TYPE_NOUN) == {"currently", "first", "kind", "originally", "still", "type"}
    assert extras(lexicon.PHRASE_END) == extras(lexicon.NOT_A_TYPE_NOUN) | {"near"}
    assert extras(lexicon.DANGLING) == {"via"}


def test_nationalities_share_the_languages_named_after_a_people() -> None:
    assert {"french", "welsh", "japanese"} <= lexicon.NATIONALITIES & lexicon.LANGUAGES
    assert "mandarin" in lexicon.LANGUAGES and "mandarin" not in lexicon.NATIONALITIES
    assert {"american", "swiss"} <= lexicon.NATIONALITIES - lexicon.LANGUAGES


def test_name_runs_keep_connectors_and_following_numbers() -> None:
    found = [
        m.group(0) for m in lexicon.NAME.finditer("Then Vincent van Gogh saw Apollo 11 and paid 3.5 marks.")
    ]
    assert found == ["Then Vincent van Gogh", "Apollo 11"]


def test_inner_name_patterns_skip_the_opening_word_in_their_own_ways() -> None:
    question = "Where did Mara O'Dell live in 1990?"
    assert lexicon.INNER_NAME_OR_NUMBER.findall(question) == ["Mara", "O'Dell", "1990"]
    answer = "Lena moved to the U.S. Then Ravenholm hired her."
    assert lexicon.INNER_NAME_WORD.findall(answer) == ["Ravenholm"]


def test_months_are_calendar_words() -> None:
    assert {"march", "sunday"} <= lexicon.CALENDAR_WORDS
    assert len(lexicon.MONTHS) == 12
