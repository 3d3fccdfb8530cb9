"""The card browser in the API: search and filter the cards the learner may study, with their
own schedule of each."""

from django.urls import path
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.browse import selectors as browse
from apps.browse.forms import BrowseForm
from apps.browse.serializers import BrowseCardSerializer, BrowsePageSerializer

STATE_HELP = (
    "new: never reviewed; learning: reviewed, then failed or waiting for a re-drill; due: due by"
    " the end of your today; suspended; leech: lapsed as often as your leech threshold."
)


SLUG = {"type": "string", "maxLength": 80, "pattern": "^[-a-zA-Z0-9_]+$"}


NO_NUL = "^[^\\u0000]*$"


class CardSearch(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "q",
                {"type": "string", "maxLength": 200, "pattern": NO_NUL},
                description="Words to find in fronts and backs (PostgreSQL: full-text, stemmed,"
                ' with "a phrase", -word and or; SQLite: every word as a substring).',
            ),
            OpenApiParameter("deck", SLUG, description="Deck slug."),
            OpenApiParameter("section", SLUG, description="Section slug."),
            OpenApiParameter(
                "tag",
                {"type": "string", "maxLength": 100, "pattern": NO_NUL},
                description="Cards with this tag.",
            ),
            OpenApiParameter("state", str, enum=browse.STATES, description=STATE_HELP),
            OpenApiParameter(
                "sort",
                str,
                enum=browse.SORTS,
                description="Your due date, easiness or lapses; - for descending. Deck order"
                " if absent; cards you never studied come last.",
            ),
            OpenApiParameter(
                "page",
                {"type": "integer", "minimum": 1, "maximum": 10**6},
                description=f"{browse.PAGE_SIZE} cards a page; past the last page, the last page.",
            ),
        ],
        responses={
            200: BrowsePageSerializer,
            400: OpenApiResponse(description="A parameter is out of range; the error names it."),
        },
        summary="Search and filter the cards you can study, with your schedule of each",
    )
    def get(self, request: Request) -> Response:
        for name in ("deck", "section", "state", "sort", "page"):
            if request.query_params.get(name) == "":  # the page's form sends these empty
                raise exceptions.ValidationError({name: f"{name} is empty; leave it out"})
        form = BrowseForm(request.query_params)
        if not form.is_valid():
            raise exceptions.ValidationError(
                {name: [str(e) for e in errors] for name, errors in form.errors.items()}
            )
        page = browse.cards_search(request.user, **form.query())
        return Response(
            {
                "count": page.paginator.count,
                "page": page.number,
                "pages": page.paginator.num_pages,
                "results": BrowseCardSerializer(page.object_list, many=True).data,
            }
        )


urlpatterns = [path("cards/", CardSearch.as_view(), name="api-card-search")]
