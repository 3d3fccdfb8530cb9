"""A service's refusal becomes HTTP in one place for the API and one for pages (config.errors)."""

import pytest
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.test import RequestFactory
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from config.api import exception_handler
from config.errors import Conflict, Forbidden, Gone, ServiceError, ServiceErrorMiddleware


def _page_request(method: str, **headers):
    request = getattr(RequestFactory(), method)("/teams/x/", headers=headers)
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def _refuse(request, error):
    return ServiceErrorMiddleware(lambda r: None).process_exception(request, error)


def test_a_refused_form_post_goes_back_with_the_message():
    request = _page_request("post", Referer="http://testserver/teams/x/manage/")
    response = _refuse(request, Conflict("Only an owner can do that."))
    assert (response.status_code, response["Location"]) == (
        303,
        "http://testserver/teams/x/manage/",
    )
    assert [str(m) for m in get_messages(request)] == ["Only an owner can do that."]


def test_a_refused_post_never_returns_to_another_site():
    request = _page_request("post", Referer="https://evil.example/")
    assert _refuse(request, ServiceError("No.")).headers["Location"] == "/"


def test_htmx_is_told_where_to_go_instead_of_a_redirect_it_would_swap():
    request = _page_request("post", HX_Request="true", Referer="http://testserver/a/")
    response = _refuse(request, ServiceError("No."))
    assert (response.status_code, response["HX-Redirect"]) == (204, "http://testserver/a/")


@pytest.mark.django_db
def test_a_refused_page_read_shows_the_status_and_the_sentence():
    response = _refuse(_page_request("get"), Gone("This invite has expired."))
    assert response.status_code == 410
    assert b"This invite has expired." in response.content


def test_the_api_answers_the_refusals_status_with_its_field():
    request = APIRequestFactory().post("/api/x/")
    context = {"request": request, "view": APIView()}
    response = exception_handler(
        ServiceError("max_uses must be 1 to 1000", field="max_uses"), context
    )
    assert response.status_code == 400
    assert response.data["max_uses"] == ["max_uses must be 1 to 1000"]
    assert response.data["error"] == "max_uses: max_uses must be 1 to 1000"
    response = exception_handler(Conflict("Not due yet."), context)
    assert (response.status_code, response.data["error"]) == (409, "Not due yet.")


@pytest.mark.django_db
def test_a_post_refused_for_who_sends_it_is_the_403_page_not_a_way_back():
    """Forbidden refuses the person, not what they typed: the page they came from has nothing
    for them to put right, so a post gets the 403 page (as a read does), with the sentence."""
    request = _page_request("post", Referer="http://testserver/author/")
    response = _refuse(request, Forbidden("Only staff may create decks."))
    assert response.status_code == 403
    assert b"Only staff may create decks." in response.content
    assert list(get_messages(request)) == []


def test_a_refusal_of_several_fields_answers_each_under_its_name():
    request = APIRequestFactory().post("/api/x/")
    context = {"request": request, "view": APIView()}
    error = ServiceError(fields={"slug": "slug is required", "front": "front is required"})
    assert (error.field, error.message) == ("slug", "slug is required; front is required")
    response = exception_handler(error, context)
    assert response.status_code == 400
    assert (response.data["slug"], response.data["front"]) == (
        ["slug is required"],
        ["front is required"],
    )
    assert response.data["error"] == "slug: slug is required"


def test_a_refusal_says_why():
    with pytest.raises(TypeError):
        ServiceError()
    assert ServiceError("No.", field="x").fields == {"x": "No."}
    assert ServiceError("No.").detail == "No."
