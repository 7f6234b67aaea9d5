import pytest

from tasks_catalog.sealed import SealError, month_seed, seal, unseal

SECRET = "operator-secret-for-tests-only-0123456789"
DOC = {"tasks": [{"goal": "Archive the channel #falcon-launch-ops before Friday"}]}


def test_a_sealed_month_opens_with_the_right_secret_and_month():
    blob = seal(DOC, month="2026-12", secret=SECRET)
    assert unseal(blob, month="2026-12", secret=SECRET) == DOC


def test_the_sealed_bytes_hold_no_plaintext():
    blob = seal(DOC, month="2026-12", secret=SECRET)
    assert b"falcon" not in blob and b"Archive" not in blob


def test_a_wrong_secret_or_month_is_a_clear_error_never_plaintext():
    blob = seal(DOC, month="2026-12", secret=SECRET)
    with pytest.raises(SealError, match="wrong secret"):
        unseal(blob, month="2026-12", secret="another-operator-secret-000")
    with pytest.raises(SealError, match="wrong secret"):
        unseal(blob, month="2027-01", secret=SECRET)


def test_one_flipped_byte_is_detected():
    blob = bytearray(seal(DOC, month="2026-12", secret=SECRET))
    blob[-5] ^= 0x01
    with pytest.raises(SealError, match="altered"):
        unseal(bytes(blob), month="2026-12", secret=SECRET)


def test_a_missing_or_weak_secret_is_refused(monkeypatch):
    monkeypatch.delenv("MCPBENCH_SECRET", raising=False)
    with pytest.raises(SealError, match="MCPBENCH_SECRET"):
        seal(DOC, month="2026-12")
    with pytest.raises(SealError, match="too short"):
        seal(DOC, month="2026-12", secret="short")
    with pytest.raises(SealError, match="not a sealed"):
        unseal(b'{"tasks": []}', month="2026-12", secret=SECRET)


def test_month_seeds_are_reproducible_by_the_operator_only():
    assert month_seed("2026-12", SECRET) == month_seed("2026-12", SECRET)
    assert month_seed("2026-12", SECRET) != month_seed("2027-01", SECRET)
    assert month_seed("2026-12", SECRET) != month_seed("2026-12", SECRET + "x")
