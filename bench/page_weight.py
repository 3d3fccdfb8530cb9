"""First-load CSS and JavaScript per page, raw and gzipped, and each page's HTML gzipped by
GZipMiddleware beside the same HTML uncompressed (bench/README-ux.md).

    .venv/bin/python bench/page_weight.py

Runs on a scratch SQLite database with the shipped content and one learner; reads every
<link rel=stylesheet> and <script src> a page names from the static files, as a browser with an
empty cache would fetch them."""

import gzip
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import django_setup  # noqa: E402

PAGES = [
    "/", "/decks/distributed-rl-on-ray/ray-core/", "/study/", "/study/review/", "/study/stats/",
    "/quizzes/", "/demos/", "/demos/tasks-vs-actors/", "/accounts/profile/",
]  # fmt: skip
ASSET = re.compile(r'<(?:link rel="stylesheet" href|script src)="(/static/[^"]+)"')


def main() -> None:
    scratch = tempfile.mkdtemp(prefix="raydeck-weight-")
    django_setup(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "true",
            "DATABASE_URL": f"sqlite:///{scratch}/db.sqlite3",
            "CACHE_DIR": f"{scratch}/cache",
            "CELERY_DATA_DIR": f"{scratch}/celery",
        }
    )
    from django.contrib.auth import get_user_model
    from django.contrib.staticfiles import finders
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    call_command("seed", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-pass-123")
    client = Client()
    client.force_login(user)
    print(
        f"{'page':42} {'files':>5} {'CSS+JS raw':>11} {'gzipped':>8} {'HTML raw':>9} {'gzipped':>8}"
    )
    for url in PAGES:
        html = client.get(url).content
        zipped_html = client.get(url, headers={"accept-encoding": "gzip"}).content
        assets = [finders.find(p.removeprefix("/static/").split("?")[0]) for p in
                  ASSET.findall(html.decode())]  # fmt: skip
        bodies = [Path(a).read_bytes() for a in assets if a]
        raw = sum(map(len, bodies))
        zipped = sum(len(gzip.compress(b, 9)) for b in bodies)
        print(f"{url:42} {len(bodies):>5} {raw:>11,} {zipped:>8,} {len(html):>9,} "
              f"{len(zipped_html):>8,}")  # fmt: skip
    os.environ.pop("DATABASE_URL", None)


if __name__ == "__main__":
    main()
