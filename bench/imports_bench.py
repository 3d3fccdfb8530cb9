"""Time a large CSV import as a worker job, beside the same import done inside a request.

    .venv/bin/python bench/imports_bench.py                 # 30,000 rows on PostgreSQL
    .venv/bin/python bench/imports_bench.py --rows 5000     # quicker

PostgreSQL: the role of .ci/run (raydeck/raydeck with CREATEDB) on 127.0.0.1:5432; the bench
drops and creates its own database (BENCH_PG_URL, default raydeck_hardening_bench).

Measured, in one run, on two fresh decks with the same rows:
- web: POST /api/author/import/ through Django's test client (all middleware) until its 202;
- job: `services.import_job_run`, what the Celery worker runs for that job (parse, write in one
  transaction with the revisions, progress to the cache);
- inline: `import_document` + `deck_import`, what the request itself did before imports were
  jobs (no progress reports), on the second deck.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import create_database, django_setup  # noqa: E402

DEFAULT_URL = "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_hardening_bench"


def csv_rows(rows: int) -> bytes:
    lines = ["slug,front,back,section,tags"]
    lines += [
        f"card-{i},What does worker {i} do with rollout {i}?,It sends batch {i} to the learner.,"
        f"section-{i % 8},t{i % 7}"
        for i in range(rows)
    ]
    return ("\n".join(lines) + "\n").encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=30_000)
    args = parser.parse_args()
    url = os.environ.get("BENCH_PG_URL", DEFAULT_URL)
    create_database(url)
    django_setup(
        {"DEBUG": "true", "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": url,
         "THROTTLE_WRITE": "100000/min", "LOG_LEVEL": "WARNING"}
    )  # fmt: skip
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from rest_framework.test import APIClient

    from apps.authoring import services
    from apps.authoring.formats import import_document

    call_command("migrate", verbosity=0)
    staff = get_user_model().objects.create_user("bench", password="x", is_staff=True)
    data = csv_rows(args.rows)
    print(f"{args.rows} rows, {len(data) / 1024:.0f} KiB, PostgreSQL")

    client = APIClient()
    client.force_authenticate(staff)
    client.get("/api/decks/")  # the first request of a process loads the URLconf
    started = time.perf_counter()
    response = client.post(
        "/api/author/import/",
        {"file": SimpleUploadedFile("bulk.csv", data), "deck": "bench-job", "title": "Job"},
        format="multipart",
    )
    web_s = time.perf_counter() - started
    assert response.status_code == 202, response.content[:300]
    job_id = response.json()["id"]

    started = time.perf_counter()
    assert services.import_job_run(job_id=job_id) == "succeeded"
    job_s = time.perf_counter() - started

    started = time.perf_counter()
    doc = import_document(data, filename="bulk.csv", deck_slug="bench-inline", deck_title="In")
    parse_s = time.perf_counter() - started
    services.deck_import(doc=doc, user=staff)
    inline_s = time.perf_counter() - started

    print(f"  web request (202 with the job): {web_s * 1000:.0f} ms")
    print(f"  job in the worker:  {job_s:.1f} s, {args.rows / job_s:,.0f} rows/s")
    print(f"  inline (old path):  {inline_s:.1f} s, {args.rows / inline_s:,.0f} rows/s "
          f"(parse {parse_s:.2f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
