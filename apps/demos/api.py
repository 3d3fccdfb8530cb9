"""Demo API: the catalogue, starting a run (202) and reading one's own runs."""

from django.core.exceptions import ObjectDoesNotExist
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.demos import selectors, services
from apps.demos.ray_demos import DEMOS, missing_extras
from apps.demos.serializers import DemoRunCreateSerializer, DemoRunSerializer, DemoSerializer

ERROR = OpenApiResponse(description='JSON with an "error" sentence saying what to change.')


class DemoList(APIView):
    """Every live demo with its parameters (type, default, bounds, help) and its cards."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=DemoSerializer(many=True))
    def get(self, request: Request) -> Response:
        cards = selectors.cards_by_demo()
        data = [
            {
                "slug": spec.slug,
                "title": spec.title,
                "description": spec.description,
                "what_to_see": spec.what_to_see,
                "claim": spec.claim.as_dict(),
                "modelled": spec.modelled,
                "available": not missing_extras(spec),
                "needs": list(spec.needs),
                "cards": cards.get(spec.slug, []),
                "params": [p.as_dict() for p in spec.params],
            }
            for spec in DEMOS
        ]
        return Response(DemoSerializer(data, many=True).data)


class DemoRunCreate(APIView):
    """Queue a run of a demo for the demos worker; poll GET /api/demo-runs/{id}/ for points."""

    @extend_schema(
        request=DemoRunCreateSerializer,
        responses={202: DemoRunSerializer, 400: ERROR, 429: ERROR, 503: DemoRunSerializer},
    )
    def post(self, request: Request) -> Response:
        body = DemoRunCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        run = services.demo_run_create(
            user=request.user, demo=body.validated_data["demo"],
            params=body.validated_data["params"],
        )  # fmt: skip
        if run.status == run.Status.FAILED:  # the broker refused it: nothing will run
            return Response(DemoRunSerializer(run).data, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        return Response(DemoRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)


class DemoRunDetail(APIView):
    """One of the caller's runs, with its points after ?since=N (someone else's: 404)."""

    @extend_schema(
        parameters=[
            OpenApiParameter("since", OpenApiTypes.INT, description="only points with seq > N")
        ],
        responses={200: DemoRunSerializer, 400: ERROR, 404: ERROR},
    )
    def get(self, request: Request, run_id: int) -> Response:
        try:
            run = selectors.run_for_user(request.user, run_id)
        except ObjectDoesNotExist:
            raise exceptions.NotFound("No run with that id among yours.") from None
        try:
            since = max(0, int(request.query_params.get("since", 0)))
        except ValueError:
            raise exceptions.ValidationError(
                {"since": ["since must be a whole number (a seq), e.g. ?since=12"]}
            ) from None
        points = selectors.run_points(run, since=since)
        return Response(DemoRunSerializer(run, context={"points": points}).data)


class DemoRunCancel(APIView):
    """Cancel one of the caller's runs: at once if queued, within a second if running."""

    @extend_schema(request=None, responses={200: DemoRunSerializer, 404: ERROR})
    def post(self, request: Request, run_id: int) -> Response:
        try:
            run = selectors.run_for_user(request.user, run_id)
        except ObjectDoesNotExist:
            raise exceptions.NotFound("No run with that id among yours.") from None
        return Response(DemoRunSerializer(services.demo_run_cancel(run=run)).data)


urlpatterns = [
    path("demos/", DemoList.as_view(), name="api-demos"),
    path("demo-runs/", DemoRunCreate.as_view(), name="api-demo-runs"),
    path("demo-runs/<int:run_id>/", DemoRunDetail.as_view(), name="api-demo-run"),
    path("demo-runs/<int:run_id>/cancel/", DemoRunCancel.as_view(), name="api-demo-run-cancel"),
]
