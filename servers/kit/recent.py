"""A small, thread-safe cache of the most recently used entries: the world states a process has
validated (``servers.kit.world``), the columnar batches of a world's postgres tables."""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class Recent(Generic[V]):
    """At most ``size`` entries; a hit makes its entry the most recent, a new entry evicts the least
    recent. Safe to share between threads (a thread-pool evaluation builds backends in parallel)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        self.size = size
        self._entries: dict[Hashable, V] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._entries.pop(key, None)
            if value is not None:
                self._entries[key] = value  # most recently used last
            return value

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._entries.pop(key, None)
            self._entries[key] = value
            while len(self._entries) > self.size:
                del self._entries[next(iter(self._entries))]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __contains__(self, key: Hashable) -> bool:
        """Whether ``key`` is held (without making it the most recent)."""
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)


__all__ = ["Recent"]
