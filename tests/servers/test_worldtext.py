"""The shared text filler of the world generators draws exactly what ``rng.choice``/``rng.randint`` draw."""

from __future__ import annotations

import random

import pytest

from servers.kit.worldtext import POOLS, WEEKDAYS, Words, fill
from servers.org import organisation

TEMPLATE = "{customer}|{service}|{region}|{project}|{day}|{n}|{pct}|{ms}|{amount}|{ticket}|{version}"


def reference_fill(rng: random.Random, template: str, words: Words = POOLS, **fixed: str) -> str:
    """``fill`` as it was written before it called ``_randbelow`` itself (worlds' digests depend on it)."""
    values = {
        "customer": rng.choice(words.customers), "service": rng.choice(words.services),
        "region": rng.choice(words.regions), "project": rng.choice(words.projects), "day": rng.choice(WEEKDAYS),
        "n": str(rng.randint(2, 40)),
        "pct": str(rng.randint(2, 99)), "ms": str(rng.choice((120, 180, 250, 340, 480, 900, 1200, 2100))),
        "amount": f"{rng.randint(2, 180) * 250:,}", "ticket": f"KFS-{rng.randint(1200, 4800)}",
        "version": f"4.{rng.randint(10, 24)}.{rng.randint(0, 6)}",
    }
    values.update(fixed)
    return template.format(**values)


@pytest.mark.parametrize("words", [POOLS, organisation(1, 3, "small").words], ids=["pools", "organisation"])
def test_fill_draws_what_choice_and_randint_draw_and_leaves_the_generator_where_they_do(words):
    for seed in range(200):
        mine, theirs = random.Random(seed), random.Random(seed)
        for _ in range(20):
            assert fill(mine, TEMPLATE, words) == reference_fill(theirs, TEMPLATE, words), seed
            assert fill(mine, "{n} {day}", words, day="Sunday") == reference_fill(theirs, "{n} {day}", words, day="Sunday")
        assert mine.getstate() == theirs.getstate(), seed


def test_fill_refuses_an_empty_word_pool_instead_of_drawing_forever():
    with pytest.raises(IndexError, match="empty"):
        fill(random.Random(1), TEMPLATE, Words(customers=()))
