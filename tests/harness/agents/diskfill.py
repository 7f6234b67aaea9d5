"""Writes three files of 512 MiB into its home, as far as it is let."""
import os

written = 0
try:
    for i in range(3):
        with open(os.path.join(os.environ["HOME"], f"fill-{i}.bin"), "wb") as f:
            block = b"x" * (1 << 20)
            for _ in range(512):
                f.write(block)
                written += len(block)
except OSError as exc:
    raise SystemExit(f"stopped after {written >> 20} MiB: {exc.strerror}") from None
print(f"wrote {written >> 20} MiB")
