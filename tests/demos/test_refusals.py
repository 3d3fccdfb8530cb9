"""A refused run is a config.errors.ServiceError with its status: the API answers it through
config.api's one mapping, in the bodies clients already read; the demo page shows it on its form.
Nothing is queued."""

import pytest
from django.urls import reverse

from apps.demos import services
from apps.demos.models import DemoRun
from config.errors import ServiceError

pytestmark = pytest.mark.django_db


def test_bad_params_name_each_parameter_and_say_it_in_one_sentence(api_client, alice):
    api_client.force_authenticate(alice)
    body = {"demo": "tasks-vs-actors", "params": {"n_items": 500, "work_ms": 0}}
    response = api_client.post("/api/demo-runs/", body, format="json")
    assert response.status_code == 400
    refused = response.json()
    assert set(refused["params"]) == {"n_items", "work_ms"}
    assert refused["params"]["n_items"] == "n_items must be between 1 and 64, got 500"
    assert refused["error"].startswith("n_items must be between 1 and 64, got 500; work_ms")
    assert not DemoRun.objects.exists()


def test_too_many_runs_is_a_429_whose_error_is_the_sentence(api_client, alice, settings):
    settings.DEMOS_MAX_ACTIVE_RUNS_PER_USER = 1
    DemoRun.objects.create(user=alice, demo="vtrace")
    api_client.force_authenticate(alice)
    response = api_client.post("/api/demo-runs/", {"demo": "vtrace"}, format="json")
    sentence = (
        "You already have 1 demo runs queued or running (at most 1); "
        "wait for one to finish or cancel it."
    )
    assert response.status_code == 429
    assert response.json() == {"detail": sentence, "error": sentence}
    assert DemoRun.objects.count() == 1


def test_every_refusal_is_a_service_error_with_its_status(alice, settings):
    settings.DEMOS_MAX_ACTIVE_RUNS_PER_USER = 0
    with pytest.raises(ServiceError) as bad:
        services.demo_run_create(user=alice, demo="vtrace", params={"max_lag": 99})
    assert bad.value.status == 400 and bad.value.errors == {
        "max_lag": "max_lag must be between 1 and 20, got 99"
    }
    with pytest.raises(ServiceError) as busy:
        services.demo_run_create(user=alice, demo="vtrace", params={})
    assert busy.value.status == 429 and set(busy.value.errors) == {"__all__"}


def test_the_form_shows_a_refusal_above_it_with_its_status(client, alice, settings):
    settings.DEMOS_MAX_ACTIVE_RUNS_PER_USER = 0
    client.force_login(alice)
    response = client.post(reverse("demos:demo", args=["vtrace"]), {"max_lag": "3"})
    assert response.status_code == 429
    assert "wait for one to finish or cancel it." in response.content.decode()
    assert not DemoRun.objects.exists()
