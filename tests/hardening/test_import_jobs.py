"""Finding 2: a large import runs in the worker. The web stores the file and answers at once
(202 with a job), the worker writes it in one transaction, the API reports its status, progress
and counts, a second import of the deck meanwhile is refused, and the upload is throttled."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from apps.authoring import services
from apps.authoring.models import ImportJob
from apps.authoring.tasks import import_job_run_task
from apps.decks.models import Card, Deck

pytestmark = pytest.mark.django_db
ROWS = 1700  # about 71 KB: over the 64 KiB a request imports itself


def big_csv(rows: int = ROWS, slug_prefix: str = "c") -> bytes:
    lines = ["slug,front,back,section,tags"]
    lines += [f"{slug_prefix}{i},Question {i}?,Answer {i}.,bulk,t{i % 7}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def upload(client, data: bytes, url="/api/author/import/", deck="bulk-deck", **extra):
    body = {"file": SimpleUploadedFile("bulk.csv", data), "deck": deck, "title": "Bulk", **extra}
    return client.post(url, body, format="multipart")


@pytest.fixture
def author(staff) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff)
    return client


def test_a_large_import_is_answered_at_once_with_a_job_and_written_by_the_worker(author):
    upload(author, b"x", deck="warm-up")  # the first request of a process loads the URLconf
    response = upload(author, big_csv())
    assert response.status_code == 202, response.content[:300]
    job = response.json()
    assert job["status"] == "queued" and job["progress"] == 0 and response["Location"] == job["url"]
    assert not Deck.objects.filter(slug="bulk-deck").exists()  # nothing written by the web

    assert services.import_job_run(job_id=job["id"]) == "succeeded"  # what the worker runs
    done = author.get(job["url"]).json()
    assert (done["status"], done["progress"], done["rows_total"]) == ("succeeded", 1.0, ROWS)
    assert done["result"]["created"] == ROWS and done["deck"] == "bulk-deck"
    assert Card.objects.filter(deck__slug="bulk-deck").count() == ROWS
    assert services.import_job_run(job_id=job["id"]) is None  # idempotent: claimed once


def test_the_jobs_endpoint_takes_any_size_and_a_dry_run_writes_nothing(author):
    response = upload(author, big_csv(10), url="/api/author/imports/?dry_run=1")
    assert response.status_code == 202
    services.import_job_run(job_id=response.json()["id"])
    done = author.get(response.json()["url"]).json()
    assert done["status"] == "succeeded" and done["dry_run"] and done["result"]["created"] == 10
    assert not Deck.objects.filter(slug="bulk-deck").exists()


def test_a_second_import_of_the_deck_while_one_is_queued_is_refused(author):
    assert upload(author, big_csv()).status_code == 202
    again = upload(author, big_csv(), url="/api/author/imports/")
    assert again.status_code == 409
    assert "Another import of deck 'bulk-deck' is queued or running" in again.json()["error"]
    assert upload(author, big_csv(), deck="other-deck").status_code == 202  # another deck: fine


def test_a_yaml_import_claims_its_deck_when_the_worker_reads_it(author, staff):
    text = "slug: ydeck\ntitle: Y\nsections:\n- slug: s\n  title: S\n  cards:\n"
    text += "".join(f"  - {{slug: c{i}, front: f{i}, back: b{i}}}\n" for i in range(2500))
    ImportJob.objects.create(user=staff, deck_slug="ydeck", filename="x.yaml", data=b"",
                             status=ImportJob.Status.RUNNING)  # fmt: skip
    body = {"file": SimpleUploadedFile("y.yaml", text.encode())}
    job = author.post("/api/author/imports/", body, format="multipart").json()
    assert services.import_job_run(job_id=job["id"]) == "failed"
    failed = author.get(job["url"]).json()
    assert failed["error"].startswith("Nothing was imported. Another import of deck 'ydeck'")
    assert not Deck.objects.filter(slug="ydeck").exists()


def test_a_bad_file_fails_the_job_with_the_reason_and_writes_nothing(author):
    data = big_csv() + b"broken,row\n"
    job = upload(author, data).json()
    assert services.import_job_run(job_id=job["id"]) == "failed"
    failed = author.get(job["url"]).json()
    assert failed["status"] == "failed" and failed["error"].startswith("Nothing was imported.")
    assert not Deck.objects.filter(slug="bulk-deck").exists()


def test_only_the_owner_sees_a_job(author, django_user_model):
    job = upload(author, big_csv(10), url="/api/author/imports/").json()
    other = django_user_model.objects.create_user(username="eve", password="x", is_staff=True)
    client = APIClient()
    client.force_authenticate(other)
    assert client.get(job["url"]).status_code == 404


def test_job_uploads_are_throttled_like_other_writes(author, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "write": "1/day"
        },
    }  # fmt: skip
    assert upload(author, big_csv(5), url="/api/author/imports/").status_code == 202
    assert upload(author, big_csv(5), url="/api/author/imports/", deck="d2").status_code == 429


def test_the_task_runs_on_the_default_queue_with_limits_and_late_acks():
    routes = django_settings.CELERY_TASK_ROUTES
    assert not any(import_job_run_task.name.startswith(p.rstrip("*")) for p in routes)
    assert import_job_run_task.acks_late and import_job_run_task.reject_on_worker_lost
    assert import_job_run_task.soft_time_limit < import_job_run_task.time_limit


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_the_job_fails_at_once_with_503(broker_down, staff):
    client = APIClient()
    client.force_authenticate(staff)
    response = upload(client, big_csv(10), url="/api/author/imports/")
    assert response.status_code == 503
    assert "the task broker did not answer" in response.json()["error"]
    assert not ImportJob.objects.filter(status__in=ImportJob.ACTIVE).exists()


def test_the_import_page_previews_and_imports_a_large_file_as_jobs_with_a_progress_bar(
    client, staff
):
    client.force_login(staff)
    form = {"file": SimpleUploadedFile("bulk.csv", big_csv()), "deck": "bulk-deck"}
    response = client.post("/author/import/", form)
    assert response.status_code == 302
    # the request only queued the preview: the worker reads the file
    assert ImportJob.objects.get(dry_run=True).status == "queued"
    page = client.get(response["Location"]).content.decode()
    assert '<progress id="import-progress"' in page and 'hx-trigger="every 1s"' in page
    preview = ImportJob.objects.get(dry_run=True)
    services.import_job_run(job_id=preview.pk)
    fragment = client.get(response["Location"], HTTP_HX_REQUEST="true")
    assert fragment.status_code == 286  # htmx stops polling
    html = fragment.content.decode()
    assert f"<strong>{ROWS}</strong> new" in html and "Import these cards" in html
    assert not Deck.objects.filter(slug="bulk-deck").exists()

    commit = client.post(f"/author/imports/{preview.pk}/commit/")
    again = client.post(f"/author/imports/{preview.pk}/commit/", follow=True)
    assert "Another import of deck &#x27;bulk-deck&#x27; is queued or running" in (
        again.content.decode()
    )
    job = ImportJob.objects.get(dry_run=False)
    assert commit["Location"] == f"/author/imports/{job.pk}/"
    services.import_job_run(job_id=job.pk)
    done = client.get(commit["Location"]).content.decode()
    assert "Open the deck" in done and Card.objects.filter(deck__slug="bulk-deck").count() == ROWS


def test_while_the_worker_writes_the_status_endpoint_reports_rising_progress(author, monkeypatch):
    from apps.authoring.services import imports
    from apps.decks import content

    job = upload(author, big_csv()).json()
    seen = []
    real_cache = imports.cache

    class Watched:
        """The real cache; after each progress write, the API is asked for the job."""

        def __getattr__(self, name):
            return getattr(real_cache, name)

        def set(self, *args, **kwargs):
            real_cache.set(*args, **kwargs)
            seen.append(author.get(job["url"]).json()["progress"])

    monkeypatch.setattr(content, "PROGRESS_EVERY", 500)
    monkeypatch.setattr(imports, "PROGRESS_EVERY", 500)
    monkeypatch.setattr(imports, "cache", Watched())
    services.import_job_run(job_id=job["id"])
    assert seen == sorted(seen) and len(seen) >= 6 and seen[0] > 0 and seen[-1] < 1, seen
    assert author.get(job["url"]).json()["progress"] == 1.0
