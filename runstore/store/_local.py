"""The embedded store: a folder on the local disk."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from runstore.store._base import LAYOUT, Store, StoreError, schema_of

if TYPE_CHECKING:
    import pyarrow.dataset as ds

_TMP_PREFIX = "."  # temporary files start with a dot: never listed, never read by a dataset or a glob


class LocalStore(Store):
    """Runs, calls and artefacts under a local folder; each write goes to a temporary file in the
    target's folder, then ``os.replace`` swaps it in (atomic on POSIX)."""

    def __init__(self, root: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.path = Path(root).expanduser().resolve()
        self.root = str(self.path)
        self.fsync = fsync  # flush each file to disk before it is renamed in (off: atomic, not crash-durable)

    def _put(self, key: str, data: bytes) -> None:
        target = self.path / key
        tmp = target.parent / f"{_TMP_PREFIX}{target.name}.{uuid.uuid4().hex}.tmp"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(data)
                if self.fsync:
                    f.flush()
                    os.fsync(f.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass  # its folder could not be made either
            raise StoreError(f"could not write {target}: {exc}") from exc

    def _get(self, key: str) -> bytes | None:
        try:
            return (self.path / key).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise StoreError(f"could not read {self.path / key}: {exc}") from exc

    def _head(self, key: str, size: int) -> bytes | None:
        try:
            with open(self.path / key, "rb") as f:
                return f.read(size)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise StoreError(f"could not read {self.path / key}: {exc}") from exc

    def _exists(self, key: str) -> bool:
        return (self.path / key).is_file()

    def _nearest(self) -> Path:
        """The root, or its nearest ancestor that exists."""
        path = self.path
        while not path.exists() and path != path.parent:
            path = path.parent
        return path

    def _check_writable(self) -> None:
        found = self._nearest()
        if found == self.path and not found.is_dir():
            raise StoreError(f"the store {self.path} is a file, not a folder: nothing can be stored in it")
        if not found.is_dir():
            raise StoreError(f"the store {self.path} cannot be made: {found} is a file, not a folder")
        if not os.access(found, os.W_OK | os.X_OK):
            raise StoreError(f"the store {self.path} cannot be written: {found} is not writable")

    def _why_absent(self) -> str:
        found = self._nearest()
        if found == self.path and found.is_dir():
            return (f"the folder holds none of {', '.join(f'{name}/' for name in LAYOUT)}, so nothing has been "
                    "written to it")
        if found == self.path or not found.is_dir():
            return f"{found} is a file, not a store folder"
        return "no such folder (a store is made by `mcpbench run` or `mcpbench rotate`)"

    def _list(self, prefix: str) -> list[str]:
        base = self.path / prefix
        folder = base if prefix.endswith("/") or base.is_dir() else base.parent
        if not folder.is_dir():
            return []
        keys = []
        for dirpath, _dirs, files in os.walk(folder):
            for name in files:
                if name.startswith(_TMP_PREFIX):
                    continue
                key = Path(dirpath, name).relative_to(self.path).as_posix()
                if key.startswith(prefix):
                    keys.append(key)
        return keys

    def _children(self, prefix: str) -> list[str]:
        folder = self.path / prefix
        if not folder.is_dir():
            return []
        try:
            return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(_TMP_PREFIX))
        except OSError as exc:  # a folder this process may not list
            raise StoreError(f"could not list {folder}: {exc}") from exc

    def version(self) -> str | None:
        """The index folder's modification time: every landing renames a file into it."""
        try:
            return str((self.path / "index" / "runs").stat().st_mtime_ns)
        except FileNotFoundError:
            return "empty"

    def _delete(self, key: str) -> None:
        (self.path / key).unlink(missing_ok=True)

    def parquet_glob(self, kind: str, submission_id: str | None = None) -> str:
        """The glob DuckDB's ``read_parquet`` reads for ``runs`` or ``calls``."""
        sub = f"submission={submission_id}" if submission_id else "submission=*"
        return str(self.path / kind / "month=*" / sub / "*.parquet")

    def files(self, kind: str, submission_id: str | None = None) -> list[str]:
        return sorted(str(p) for p in Path("/").glob(self.parquet_glob(kind, submission_id).lstrip("/")))

    def dataset(self, kind: str, submission_id: str | None = None) -> ds.Dataset | None:
        files = self.files(kind, submission_id)
        if not files:
            return None
        import pyarrow.dataset as ds

        return ds.dataset(files, schema=schema_of(kind), format="parquet")

    def ensure_schema_file(self, kind: str) -> Path:
        """``<kind>/_schema.parquet``: an empty file with the canonical schema, so a glob over the
        store always matches something and always carries the contract's column types. A schema file
        an older version wrote (without columns added since, e.g. ``frame_held``) is rewritten: a union
        by name over old runs only would otherwise lack those columns."""
        import pyarrow.parquet as pq

        path = self.path / kind / "_schema.parquet"
        if not path.exists() or not _same_columns(path, schema_of(kind)):  # rewritten atomically (_put)
            import io

            buf = io.BytesIO()
            pq.write_table(schema_of(kind).empty_table(), buf)
            try:
                self._put(f"{kind}/_schema.parquet", buf.getvalue())
            except StoreError:
                if not path.exists():
                    raise
        return path


def _same_columns(path: Path, schema) -> bool:
    """Whether the Parquet file at ``path`` has exactly ``schema``'s columns and types (metadata aside);
    an unreadable file does not."""
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path).remove_metadata().equals(schema.remove_metadata())
    except (OSError, ValueError):
        return False
