"""The store on S3 or any S3-compatible service (MinIO, moto): ``s3://bucket/prefix``.

Endpoint, region and credentials come from the standard AWS settings, read once by boto3 and handed
to pyarrow's S3 filesystem, so both talk to the same service. A PUT is atomic in S3 (an object becomes
visible whole or not at all), so writes go straight to their key; transient failures are retried with
exponential backoff, then reported naming the key.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import urlparse

import boto3
import pyarrow.dataset as ds
import pyarrow.fs as pafs
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

from runstore.store._base import Store, StoreError, schema_of

T = TypeVar("T")
_TRANSIENT_CODES = {"Throttling", "ThrottlingException", "SlowDown", "RequestTimeout", "InternalError",
                    "ServiceUnavailable", "RequestTimeTooSkewed"}


def _endpoint() -> str | None:
    return os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or None


def _transient(exc: Exception) -> bool:
    if isinstance(exc, BotoConnectionError | HTTPClientError):  # refused, reset, timed out, closed mid-response
        return True
    if isinstance(exc, ClientError):
        err = exc.response.get("Error", {})
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return status >= 500 or err.get("Code") in _TRANSIENT_CODES
    return False


class S3Store(Store):
    def __init__(self, root: str, *, attempts: int = 5, backoff_s: float = 0.2, timeout_s: float = 10.0) -> None:
        url = urlparse(root)
        if url.scheme != "s3" or not url.netloc:
            raise StoreError(f"bad S3 store root {root!r}: expected s3://bucket/prefix")
        self.root = root.rstrip("/")
        self.bucket = url.netloc
        self.prefix = url.path.strip("/")
        self.attempts = max(1, attempts)
        self.backoff_s = backoff_s
        session = boto3.session.Session()
        config = Config(retries={"total_max_attempts": 1, "mode": "standard"},  # one try: we retry ourselves, naming the key
                        connect_timeout=timeout_s, read_timeout=timeout_s)
        self.client = session.client("s3", endpoint_url=_endpoint(), config=config)
        self._session = session
        self._fs: pafs.S3FileSystem | None = None

    # -- keys --------------------------------------------------------------------------------
    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _rel(self, full: str) -> str:
        return full[len(self.prefix) + 1:] if self.prefix else full

    def _retry(self, action: str, key: str, fn: Callable[[], T]) -> T:
        last: Exception | None = None
        for attempt in range(self.attempts):
            try:
                return fn()
            except (ClientError, BotoCoreError) as exc:
                if not _transient(exc):
                    raise StoreError(f"could not {action} s3://{self.bucket}/{self._key(key)}: {exc}") from exc
                last = exc
                if attempt + 1 < self.attempts:
                    time.sleep(self.backoff_s * (2**attempt) * (0.5 + random.random() / 2))
        raise StoreError(
            f"could not {action} s3://{self.bucket}/{self._key(key)} after {self.attempts} attempts: {last}"
        ) from last

    # -- primitives ------------------------------------------------------------------------------
    def _put(self, key: str, data: bytes) -> None:
        self._retry("write", key, lambda: self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data))

    def _get(self, key: str) -> bytes | None:
        def get() -> bytes | None:
            try:
                return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read()
            except ClientError as exc:
                if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                    return None
                raise

        return self._retry("read", key, get)

    def _head(self, key: str, size: int) -> bytes | None:
        def get() -> bytes | None:
            try:
                return self.client.get_object(Bucket=self.bucket, Key=self._key(key),
                                              Range=f"bytes=0-{max(0, size - 1)}")["Body"].read(size)
            except ClientError as exc:
                code = exc.response.get("Error", {}).get("Code")
                if code in ("NoSuchKey", "404"):
                    return None
                if code == "InvalidRange":  # an empty object has no byte 0
                    return b""
                raise

        return self._retry("read", key, get)

    def _check_writable(self) -> None:
        def head() -> None:
            try:
                self.client.head_bucket(Bucket=self.bucket)
            except ClientError as exc:
                status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
                if status == 404:
                    raise StoreError(f"the store {self.root} has no bucket: there is no bucket {self.bucket!r} at "
                                     f"{_endpoint() or 'AWS'} (a store never makes buckets; create it first)") from None
                if status == 403:
                    raise StoreError(f"the store {self.root} cannot be used: access to bucket {self.bucket!r} "
                                     "is denied with these credentials") from None
                raise

        self._retry("look up the bucket of", "", head)

    def _why_absent(self) -> str:
        self._check_writable()  # a missing bucket says so
        return "nothing is stored under that prefix"

    def _exists(self, key: str) -> bool:
        def head() -> bool:
            try:
                self.client.head_object(Bucket=self.bucket, Key=self._key(key))
                return True
            except ClientError as exc:
                if exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") == 404:
                    return False
                raise

        return self._retry("look up", key, head)

    def _pages(self, prefix: str, **extra) -> list[dict]:
        def collect() -> list[dict]:
            paginator = self.client.get_paginator("list_objects_v2")
            return list(paginator.paginate(Bucket=self.bucket, Prefix=self._key(prefix), **extra))

        return self._retry("list", prefix or "/", collect)

    def _list(self, prefix: str) -> list[str]:
        return [self._rel(obj["Key"]) for page in self._pages(prefix) for obj in page.get("Contents", [])]

    def _children(self, prefix: str) -> list[str]:
        names = []
        for page in self._pages(prefix, Delimiter="/"):
            for common in page.get("CommonPrefixes", []):
                names.append(self._rel(common["Prefix"]).removeprefix(prefix).strip("/"))
        return sorted(names)

    def _delete(self, key: str) -> None:
        self._retry("delete", key, lambda: self.client.delete_object(Bucket=self.bucket, Key=self._key(key)))

    # -- reading with pyarrow ---------------------------------------------------------------------
    def filesystem(self) -> pafs.S3FileSystem:
        """A pyarrow S3 filesystem with boto3's endpoint, region and credentials."""
        if self._fs is None:
            creds = self._session.get_credentials()
            frozen = creds.get_frozen_credentials() if creds else None
            endpoint = _endpoint()
            kwargs: dict = {"region": self._session.region_name or "us-east-1"}
            if frozen:
                kwargs.update(access_key=frozen.access_key, secret_key=frozen.secret_key,
                              session_token=frozen.token)
            if endpoint:
                url = urlparse(endpoint)
                kwargs.update(endpoint_override=url.netloc or url.path, scheme=url.scheme or "https")
            self._fs = pafs.S3FileSystem(**kwargs)
        return self._fs

    def dataset(self, kind: str, submission_id: str | None = None) -> ds.Dataset | None:
        keys = [k for k in self._list(f"{kind}/") if k.endswith(".parquet")]
        if submission_id is not None:
            keys = [k for k in keys if f"/submission={submission_id}/" in k]
        if not keys:
            return None
        paths = [f"{self.bucket}/{self._key(k)}" for k in sorted(keys)]
        return ds.dataset(paths, schema=schema_of(kind), format="parquet", filesystem=self.filesystem())
