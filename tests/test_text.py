"""The one text module: the same words, stems and stopwords as the local index."""

from __future__ import annotations

import json
import re
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest

from deepresearch.citations import Source, cited_ids, renumber_citations
from deepresearch.domain import TodoItem
from deepresearch.extractive import extractive_points
from deepresearch.graph.nodes.judge import code_judgement, is_relevant
from deepresearch.index import query as index_query
from deepresearch.index import store
from deepresearch.index.loaders import demo_corpus_path
from deepresearch.text import (
    CITATION,
    CITATION_LIKE,
    STOPWORDS,
    cited_numbers,
    coverage,
    is_cjk,
    jaccard,
    key_stems,
    key_terms,
    language_of,
    missing_terms,
    rank_by_terms,
    sentences,
    split_sentences,
    stem,
    stems,
    strip_citations,
    tokens,
    words,
)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("states", "state"),
        ("State", "state"),
        ("dogs", "dog"),
        ("breeds", "breed"),
        ("founded", "found"),
        ("running", "run"),
        ("technology", "technolog"),  # Porter's C version (FTS5): logi -> log
        ("possibly", "possibl"),  # and bli -> ble
        ("1980s", "1980"),
        ("is", "is"),  # under three characters: unchanged, as in FTS5
        ("Purkyně", "purkyn"),  # Latin diacritics folded first
        ("東京", "東京"),
    ],
)
def test_stem_matches_the_index(word: str, expected: str) -> None:
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Gallup's poll", ["gallup", "s", "poll"]),
        ("COVID-19 in the U.S.", ["covid", "19", "in", "the", "u", "s"]),
        ("東京tower", ["東京", "tower"]),
        ("東京タワー", ["東京", "京タ", "タワ", "ワー"]),
        ("서울 시", ["서울", "시"]),
    ],
)
def test_words_split_like_unicode61_with_cjk_bigrams(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Which U.S. county grows the most cranberries?", ["county", "grows", "cranberries"]),
        ("dogs and dog breeds, breed", ["dogs", "breeds"]),
        ("The latest developments on Karel Purkyně", ["karel", "purkyně"]),
        ("In 1410 the clock was built", ["1410", "clock", "built"]),
        ("布拉格天文钟", ["布拉", "拉格", "格天", "天文", "文钟"]),
    ],
)
def test_key_terms_are_content_words_one_per_stem(text: str, expected: list[str]) -> None:
    assert key_terms(text) == expected


@pytest.mark.parametrize(
    ("terms", "text", "missing"),
    [
        (["state", "dog", "breed"], "Texas states allow these dogs and breeds.", []),
        (["founded", "company"], "The founder built two companies.", ["founded"]),
        (["founding", "companies"], "It was founded by a company.", []),
        (["purkyně"], "Jan Purkyne died in Prague.", []),
        (["clock", "prague"], "The Brighton clock tower.", ["prague"]),
        (["天文"], "布拉格天文钟", []),
    ],
)
def test_missing_terms_compare_stems(terms: list[str], text: str, missing: list[str]) -> None:
    assert missing_terms(terms, text) == missing


@pytest.mark.parametrize(
    ("terms", "text", "share"),
    [
        (["state", "dog", "breed"], "states dogs breeds", 1.0),
        (["state", "dog", "breed", "cat"], "states dogs breeds", 0.75),
        ([], "anything", 0.0),
    ],
)
def test_coverage_by_stem(terms: list[str], text: str, share: float) -> None:
    assert coverage(terms, text) == pytest.approx(share)


def test_judge_finds_no_gap_when_a_source_holds_an_inflected_form() -> None:
    question = "Which county fair shows the most pony breeds?"
    task = TodoItem(id=1, title="Pony breeds by county", intent="count", query="county pony breed")
    source = Source(
        id=1,
        url="doc://x",
        title="Ponies at the fairs",
        snippet="",
        content="Of all the county fairs, Harlow's shows the most ponies; breeds from there win prizes.",
        task_ids=[1],
    )
    judged = code_judgement(question, task, [source])
    assert judged.gaps == []
    assert judged.relevant == 1
    assert is_relevant(key_terms("dog breeds"), "a dog breed")


def test_rank_by_terms_matches_inflections() -> None:
    candidates = ["The weather was fine.", "Pizza Hut was founded in 1958 by two founders."]
    ranked = rank_by_terms(candidates, ["founding", "pizza"])
    assert ranked[0][1] == 1 and ranked[0][0] > 0 and ranked[1][0] == 0


@pytest.mark.parametrize(
    ("a", "b", "at_least"),
    [(["dogs", "breeds"], ["dog", "breed"], 1.0), (["dog"], ["cat"], 0.0)],
)
def test_jaccard_of_stems(a: list[str], b: list[str], at_least: float) -> None:
    assert jaccard(a, b) == pytest.approx(at_least)


def test_tokens_keep_whole_numbers_and_hyphenated_words() -> None:
    assert tokens("COVID-19 rose 3.5 percent in 東京") == ["covid-19", "rose", "3.5", "percent", "in", "東京"]


@pytest.mark.parametrize(
    ("text", "cjk", "language"),
    [
        ("布拉格天文钟是什么时候建造的？", True, "zh"),
        ("東京タワーはいつ建てられましたか", True, "en"),  # no Japanese or Korean report wording yet
        ("서울은 언제 수도가 되었나요", True, "en"),
        ("When was the clock built?", False, "en"),
    ],
)
def test_one_cjk_rule(text: str, cjk: bool, language: str) -> None:
    assert is_cjk(text) is cjk
    assert language_of(text) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Wann wurde die astronomische Uhr in Prag gebaut?", "de"),
        ("Quand a été construite l'horloge astronomique de Prague ?", "fr"),
        ("¿Cuándo se construyó el reloj astronómico de Praga?", "es"),
        ("Who founded La Paz and El Alto?", "en"),
        ("Are Die Antwoord and La Roux both bands?", "en"),
    ],
)
def test_reports_speak_the_questions_language(text: str, language: str) -> None:
    assert language_of(text) == language


def test_the_index_query_uses_the_one_stopword_list() -> None:
    assert index_query.STOPWORDS is STOPWORDS  # type: ignore[attr-defined]
    assert index_query.fts_query("What is the latest on dogs?") == '"dogs"'


def test_stems_equal_the_fts5_vocabulary_of_the_demo_corpus() -> None:
    """Every word of the bundled corpus stems exactly as the index's own tokenizer stems it."""
    tokenizer = re.search(r"tokenize='([^']+)'", store.MIGRATIONS[0])
    assert tokenizer is not None
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE f USING fts5(x, tokenize='{tokenizer.group(1)}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(f, 'row')")
    lines = demo_corpus_path().read_text(encoding="utf-8").splitlines()
    text = " ".join(json.loads(line)["text"] for line in lines)
    vocabulary = sorted({w for w in words(text) if not is_cjk(w)})
    rows = [(w,) for w in vocabulary]
    conn.executemany("INSERT INTO f(x) VALUES (?)", rows)
    fts_terms = {row[0] for row in conn.execute("SELECT term FROM v")}
    assert len(vocabulary) > 4000
    assert {stem(w) for w in vocabulary} == fts_terms
    assert set(stems(" ".join(vocabulary))) == fts_terms


def test_key_stems_let_two_texts_compare_terms() -> None:
    assert key_stems("Dog breeds of the United States") == key_stems("dog breed in united state")


def test_stemming_is_safe_across_threads() -> None:
    """Research tasks summarise in parallel threads; a shared stemmer must not mix their words."""
    text = " ".join(f"word{n} running technologies nationalization {n}" for n in range(300))
    expected = stems(text)
    stem.cache_clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: stems(text), range(16)))
    assert all(r == expected for r in results)


def test_one_splitter_reads_sentences_for_quotes_evidence_and_the_index() -> None:
    text = "The mural was painted by J. M. Okafor in 1961 [2]. Mr. Lund restored it.\n It stands."
    assert sentences(text) == [
        "The mural was painted by J. M. Okafor in 1961.",
        "Mr. Lund restored it.",
        "It stands.",
    ]
    named = "The hall was built by Acme Inc. in 1901. It was sold to Hal Ford Jr. He rebuilt it."
    assert sentences(named) == [
        "The hall was built by Acme Inc. in 1901.",
        "It was sold to Hal Ford Jr.",
        "He rebuilt it.",
    ]
    assert split_sentences("雨が降った。傘を持つ。 Then sun.") == ["雨が降った。", "傘を持つ。", "Then sun."]
    assert split_sentences("雨が降った。傘を持つ。 Then sun.", at_cjk_stops=False) == [
        "雨が降った。傘を持つ。",
        "Then sun.",
    ]


def test_one_citation_marker_is_read_renumbered_and_stripped_alike() -> None:
    text = "Kelp grows fast [1 ，3]. Otters eat urchins [2,3]; see [x] and [1.5]."
    assert [cited_numbers(m.group(1)) for m in CITATION.finditer(text)] == [[1, 3], [2, 3]]
    assert cited_ids(text) == [1, 3, 2]
    assert renumber_citations(text, {3: 1, 2: 2}) == (
        "Kelp grows fast [1]. Otters eat urchins [2, 1]; see [x] and [1.5]."
    )
    assert strip_citations(text) == "Kelp grows fast. Otters eat urchins; see [x] and [1.5]."
    assert CITATION_LIKE.sub("_", "a [1,,2] b [ ] c [1.5]") == "a _ b _ c [1.5]"


def test_summaries_quote_sentences_whole_across_abbreviations() -> None:
    """The extractive summary quotes each sentence whole, never "…the chapel of St." alone."""
    whole = [
        "Pilgrims climb to the chapel of St. Brannoc above the harbour.",
        "Dr. Ines Marlow of the U.S. Forest Service mapped the trail on Mt. Tarrow in 1931.",
        "A plan by E. K. Hollis shows the chapel and St. Wenna's well.",
        "The trail is steep.",
    ]
    sources = [
        Source(id=i, url=f"local://chapel-{i}", title="Chapel trail", snippet="", content=sentence)
        for i, sentence in enumerate(whole, start=1)
    ]
    page = Source(id=9, url="local://chapel", title="Chapel trail", snippet="", content=" ".join(whole))
    assert sentences(page.content) == whole
    points = extractive_points([page, *sources], "chapel trail Brannoc Marlow Tarrow Hollis Wenna", limit=8)
    assert {sentence for sentence, _ in points} == set(whole)
