"""Give each pytest-xdist worker services of its own, before Django reads its settings.

`make test` runs most of the suite on two workers (`-p tests.xdist_services -n 2`). Loaded with
`-p`, this module runs in every process before pytest-django sets Django up, so a worker's
settings, and every subprocess it starts (a Celery worker, gunicorn, `manage.py`), see its own
Redis databases and broker and cache folders; the test database is already per worker
(pytest-django names it test_<name>_gw0). Outside a worker it changes nothing.
"""

import os
import re
from pathlib import Path

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1"... set before plugins load
REDIS_DB = re.compile(r"(?P<base>rediss?://[^/]+)/(?P<db>\d+)")
# Redis databases per worker past the ones set: the broker's and the cache's (0 and 1 in CI).
STRIDE = 2


def _redis_url(url: str, index: int) -> str:
    match = REDIS_DB.fullmatch(url)
    if not match:
        return url
    return f"{match['base']}/{int(match['db']) + STRIDE * (index + 1)}"


def _per_worker() -> None:
    index = int(WORKER.removeprefix("gw"))
    for name in ("CELERY_BROKER_URL", "CACHE_URL"):
        if os.environ.get(name):
            os.environ[name] = _redis_url(os.environ[name], index)
    var = Path(__file__).resolve().parent.parent / "var"
    os.environ["CELERY_DATA_DIR"] = str(Path(os.environ.get("CELERY_DATA_DIR", var / "celery")))
    os.environ["CELERY_DATA_DIR"] += f"-{WORKER}"
    os.environ["CACHE_DIR"] = str(Path(os.environ.get("CACHE_DIR", var / "cache"))) + f"-{WORKER}"


if WORKER.startswith("gw"):
    _per_worker()
