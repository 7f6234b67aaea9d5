import pytest

from tasks_catalog.templates import load_pool

SECRET = "operator-secret-for-tests-only-0123456789"


@pytest.fixture(scope="session")
def pool():
    return load_pool()
