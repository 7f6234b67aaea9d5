"""servers/kit/recent.py: the bounded cache the world states and postgres batches share."""

import threading

import pytest

from servers.kit.recent import Recent


def test_the_least_recently_used_entry_goes_first():
    cache = Recent(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2


def test_threads_sharing_one_cache_never_see_a_missing_key_error():
    cache, errors = Recent(4), []

    def churn(n):
        try:
            for i in range(2000):
                cache.put((n, i % 7), i)
                cache.get((n, (i + 3) % 7))
        except Exception as exc:  # noqa: BLE001 - what the test looks for
            errors.append(exc)

    threads = [threading.Thread(target=churn, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert errors == [] and len(cache) == 4


def test_a_cache_holds_at_least_one_entry():
    with pytest.raises(ValueError, match="at least 1"):
        Recent(0)
