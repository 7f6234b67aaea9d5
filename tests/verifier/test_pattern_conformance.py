"""Patterns beyond the corpus: generated patterns and texts, matched by Python's ``re.search`` and by
the TypeScript verifier (through ``filesystem.fileContentMatches``), must agree on every pair both
accept. Seeded, so a failure reproduces."""

from __future__ import annotations

import random
import re
import warnings

from tasks_catalog import ts_verifier

ATOMS = ["a", "b", "é", "٣", "7", "_", " ", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "^", "$",
         "\\Z", "\\A", "[ab]", "[^a]", "[\\d_]", "[]a]", "{", "}", "\\.", "\\n", "\\t", "\\$", "(a|b)", "(?:é|7)",
         "(?=a)", "(?!b)", "\\u00e9", "\\x41", "😀", "-"]
QUANTIFIERS = ["", "", "", "*", "+", "?", "{2}", "{1,2}", "{,2}", "*?", "+?"]
ALPHABET = ["a", "b", "A", "é", "E\u0301", "٣", "7", "_", " ", "\n", "\r", "\t", "\u2028", "\u001c", "\ufeff", "\xa0",
            "😀", ".", "{", "}", "]", "-", "$"]


def _pairs(seed: int, n: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    while len(pairs) < n:
        pattern = "".join(rng.choice(ATOMS) + rng.choice(QUANTIFIERS) for _ in range(rng.randint(1, 4)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                re.compile(pattern)
        except (re.error, Warning):
            continue
        for _ in range(3):
            pairs.append((pattern, "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 8)))))
    return pairs


def test_generated_patterns_match_the_same_texts_in_both_verifiers(ts_cli):
    pairs = _pairs(seed=20261202, n=3000)
    cases = [("filesystem", {"files": {"t.txt": text}, "directories": []},
              {"filesystem.fileContentMatches": {"path": "t.txt", "pattern": pattern}}) for pattern, text in pairs]
    answers = ts_verifier.run(cases)
    compared, rejected, wrong = 0, 0, []
    for (pattern, text), answer in zip(pairs, answers, strict=True):
        if not isinstance(answer, bool):
            rejected += 1
            continue
        compared += 1
        expected = re.search(pattern, text) is not None
        if answer is not expected:
            wrong.append(f"pattern {pattern!r} on {text!r}: python {expected}, typescript {answer}")
    assert not wrong, f"{len(wrong)} of {compared} disagree:\n" + "\n".join(wrong[:40])
    assert compared > 0.9 * len(pairs), f"only {compared} of {len(pairs)} pairs were inside the portable subset"


SUBSET_PROBES = ["a(?:b)", r"(?<=x)y", r"(?<!x)y", r"(?P<n>a)", r"(?i)abc", "a++", r"\++", "a?+", "[a[]", r"[\W]",
                 r"[\S]", "(?#c)x", "(?>a)", "[]a]+", r"\d{2,}", "(?=a)", "(?!a)", "[^]x]", "[a--b]", r"\N{DASH}",
                 "a{1,3}+", "[a&&b]"]


def test_the_python_pattern_check_refuses_exactly_what_the_typescript_verifier_refuses(ts_cli):
    from tasks_catalog.predicates._registry import _outside_portable_subset

    cases = [("filesystem", {"files": {"t.txt": "abc"}, "directories": []},
              {"filesystem.fileContentMatches": {"path": "t.txt", "pattern": p}}) for p in SUBSET_PROBES]
    ts_refuses = [isinstance(v, ts_verifier.NoVerdict) for v in ts_verifier.evaluate_many(cases)]
    py_refuses = [_outside_portable_subset(p) is not None for p in SUBSET_PROBES]
    disagree = [(p, py, ts) for p, py, ts in zip(SUBSET_PROBES, py_refuses, ts_refuses) if py != ts]
    assert disagree == [], "pattern (python refuses, typescript refuses)"
