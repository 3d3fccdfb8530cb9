"""How many queries a request makes, for tests that pin a count flat in the size of the data
(django_assert_num_queries pins an exact number; this compares two runs)."""

from django.db import connection
from django.test.utils import CaptureQueriesContext


def queries_of_get(client, url: str) -> int:
    """The queries of one GET of `url` that answers 200."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return len(ctx.captured_queries)
