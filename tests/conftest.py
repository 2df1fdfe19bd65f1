import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=200)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile("ci" if "CI" in os.environ else "dev")


@pytest.fixture(scope="module")
def dask_client():
    """A one-worker, in-process Dask client, the default client while a module uses it.

    Shared by the tables of bad and extreme inputs, which run every estimator,
    the Dask ones included.
    """
    distributed = pytest.importorskip("distributed")
    client = distributed.Client(
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None)
    )
    yield client
    client.close()
