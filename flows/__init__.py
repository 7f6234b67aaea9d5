"""Prefect flows: thin orchestration over the plain functions of ``mcpbench``, ``tasks_catalog`` and
``warehouse``. Flows and tasks pass ids, counts and store locations only; a private month's tasks are
decrypted inside the task that runs them and never cross a task boundary, so no goal text or task
body reaches Prefect's database, its result storage or its logs.

Deployments are declared in ``prefect.yaml``; see the README's "Deployments" section and
``docs/operations.md``.
"""

from flows.catalog import validate_catalog
from flows.evaluate import evaluate_submission
from flows.rotate import rotate_month
from flows.scoring import detect_anomalies, score

__all__ = ["detect_anomalies", "evaluate_submission", "rotate_month", "score", "validate_catalog"]
