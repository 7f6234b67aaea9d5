"""Progress of long work (``mcpbench run`` and ``rotate``, the rotation flow) as plain lines, for a
reader who is not at a terminal (a pipe, a file, a CI log, a Prefect log), so they are never left
without news for long.

``ProgressLines`` writes a line for each stage (``say``), then whenever another tenth of the work is
done or ``every_s`` seconds have passed since its last line (a ticker thread writes "still working"
lines while nothing finishes), and at the end. Every line carries ids and counts only.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

#: Seconds without a line after which the ticker writes one.
EVERY_S = 15.0


class ProgressLines:
    """Plain progress lines for ``total`` units of work (``what``: "runs", "tasks"), written with ``write``."""

    def __init__(self, total: int, what: str, *, write: Callable[[str], None] | None = None,
                 every_s: float = EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.what = total, what
        self.write = write or (lambda line: print(line, file=sys.stderr, flush=True))
        self.every_s, self.clock = every_s, clock
        self.done = 0
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._started = self._last = clock()
        self._step = max(1, -(-total // 10))  # a line at least every tenth of the work
        self._next = self._step
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def _elapsed(self) -> str:
        return f"{self.clock() - self._started:.0f} s"

    def _summary(self) -> str:
        counts = ", ".join(f"{n} {k}" for k, n in self.counts.items() if n)
        return f"{self.done}/{self.total} {self.what} done" + (f" ({counts})" if counts else "") + f", {self._elapsed()}"

    def expect(self, total: int) -> None:
        """The amount of work, once it is known (a month's tasks, once rendered)."""
        with self._lock:
            self.total, self._step = total, max(1, -(-total // 10))
            self._next = self.done + self._step

    def say(self, text: str) -> None:
        """Write one line now (a stage of the work)."""
        with self._lock:
            self._last = self.clock()
            self.write(f"{text} [{self._elapsed()}]")

    def advance(self, outcome: str | None = None, n: int = 1) -> None:
        """``n`` more units are done (``outcome`` counts them: passed, failed, ...); a line when another
        tenth is done, the work is finished, or the last line is ``every_s`` old."""
        with self._lock:
            self.done += n
            if outcome is not None:
                self.counts[outcome] = self.counts.get(outcome, 0) + n
            if self.done >= self._next or self.done >= self.total or self.clock() - self._last >= self.every_s:
                while self._next <= self.done:
                    self._next += self._step
                self._last = self.clock()
                self.write(f"progress: {self._summary()}")

    def tick(self) -> None:
        """What the ticker does: a line when the last one is ``every_s`` old and the work goes on."""
        with self._lock:
            if self.done < self.total and self.clock() - self._last >= self.every_s:
                self._last = self.clock()
                self.write(f"still working: {self._summary()}")

    def __enter__(self) -> ProgressLines:
        def run() -> None:
            while not self._stop.wait(min(1.0, self.every_s)):
                self.tick()

        self._ticker = threading.Thread(target=run, name="progress-lines", daemon=True)
        self._ticker.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join(timeout=5)


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


__all__ = ["EVERY_S", "ProgressLines", "stderr_is_terminal"]
