"""A learner's own decks in the API, under /api/my/ (the pages are /my/): the decks, their cards
and history, images, import and export, and the quota; and the card browser's bulk actions at
/api/cards/bulk/, beside its search (/api/cards/).

Any signed-in user may call them, each on their own decks only: another's private deck, card,
revision or import job is a 404 (nobody learns it exists), through the selectors the pages use
(apps.authoring.selectors: deck_for_owner, card_for_owner...). The writes are the pages'
services, with the same quota and the same refusals (config.api.exception_handler: 400 naming
the field, 409 past the quota). A create sent with a `client_id` it was sent with before returns
what it made then (200) instead of making another: a retry after a lost answer writes once."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import OuterRef, Subquery
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, permissions, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.authoring import selectors, services
from apps.authoring.api.imports import (
    DRY_RUN,
    INLINE_IMPORT_MAX_BYTES,
    import_job_data,
    upload_read,
)
from apps.authoring.formats import CONTENT_TYPES, EXPORT_FORMATS, ImportUploadCut, export_download
from apps.authoring.models import ImportJob, Revision
from apps.authoring.serializers import (
    AuthorCardSerializer,
    ImportJobSerializer,
    ImportResultSerializer,
    ImportSerializer,
    RestoreSerializer,
    RevisionSerializer,
)
from apps.browse import services as bulk
from apps.decks.content import MAX_FILE_BYTES, ContentError
from apps.decks.models import Card, Deck
from apps.decks.serializers import JSONCharField, SlugTextField
from config.api import PagedResults
from config.errors import ServiceError
from config.limits import StrictUUIDField

OWN = [permissions.IsAuthenticated]
CLIENT_ID = StrictUUIDField(
    required=False, write_only=True,
    help_text="a UUID of the caller's: the same create sent again with it returns what the "
    "first made (200) instead of making another",
)  # fmt: skip
QUOTA = OpenApiResponse(description="Past your quota of own cards or storage; nothing written.")
REPEAT = "The same client_id again: what the first request made."


def _within_quota(user, write):
    """`write()` and the quota check in one transaction: past the quota nothing is written
    (QuotaExceeded, a 409 with what to do)."""
    with transaction.atomic():
        result = write()
        services.quota_enforce(user)
        return result


# --- decks --------------------------------------------------------------------------------------


class OwnDeckSerializer(serializers.ModelSerializer):
    title = JSONCharField(max_length=200)
    description = JSONCharField(required=False, allow_blank=True)
    card_count = serializers.SerializerMethodField()
    client_id = CLIENT_ID

    class Meta:
        model = Deck
        fields = ["slug", "title", "description", "card_count", "updated_at", "client_id"]
        read_only_fields = ["slug", "updated_at"]

    def get_card_count(self, deck) -> int:
        return deck.card_count if hasattr(deck, "card_count") else deck.cards.count()


class OwnDeckList(generics.ListCreateAPIView):
    """Your own decks (private: nobody else sees them), 100 a page, by title. POST makes one
    (its slug is made from the title), with one section."""

    permission_classes = OWN
    serializer_class = OwnDeckSerializer
    pagination_class = PagedResults

    def get_queryset(self):
        return selectors.own_deck_list(self.request.user).order_by("title", "id")

    @extend_schema(
        responses={201: OwnDeckSerializer, 200: OpenApiResponse(OwnDeckSerializer, REPEAT)}
    )
    def post(self, request, *args, **kwargs):
        body = OwnDeckSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        client_id = data.pop("client_id", None)
        deck, made = services.client_write_once(
            user=request.user, client_id=client_id, kind="deck",
            make=lambda: services.own_deck_create(user=request.user, **data),
        )  # fmt: skip
        code = status.HTTP_201_CREATED if made else status.HTTP_200_OK
        return Response(OwnDeckSerializer(deck).data, status=code)


CONFIRM = OpenApiParameter(
    "confirm", str, description="the deck's slug: delete it although you have studied its cards"
)


class OwnDeckDetail(generics.RetrieveUpdateDestroyAPIView):
    """One of your decks: PATCH its title or description; DELETE removes it with its cards,
    images and your progress on them, refused (409, saying what would go) while you have
    studied its cards unless `?confirm=<the deck's slug>`."""

    permission_classes = OWN
    serializer_class = OwnDeckSerializer

    def get_object(self):
        return selectors.deck_for_owner(self.request.user, self.kwargs["slug"])

    def perform_update(self, serializer):
        fields = {k: v for k, v in serializer.validated_data.items() if k != "client_id"}
        serializer.instance = services.deck_update(deck=serializer.instance, **fields)

    @extend_schema(parameters=[CONFIRM], responses={204: None, 409: OpenApiResponse(
        description="You have studied its cards: the error says what would be lost.")})  # fmt: skip
    def delete(self, request, *args, **kwargs):
        return super().delete(request, *args, **kwargs)

    def perform_destroy(self, deck):
        confirm = self.request.query_params.get("confirm", "")
        services.deck_delete(deck=deck, by=self.request.user, confirm=confirm)


class OwnUsageSerializer(serializers.Serializer):
    cards = serializers.IntegerField(help_text="cards in use in your decks")
    bytes = serializers.IntegerField(help_text="your images plus your cards' text")
    cards_max = serializers.IntegerField()
    bytes_max = serializers.IntegerField()


class OwnUsage(APIView):
    permission_classes = OWN

    @extend_schema(responses=OwnUsageSerializer)
    def get(self, request):
        """What your own decks hold against your quota; past it, a create, an import or an
        upload is refused (409)."""
        usage = selectors.own_usage(request.user)
        return Response(OwnUsageSerializer(vars(usage)).data)


# --- cards --------------------------------------------------------------------------------------


class OwnCardSerializer(AuthorCardSerializer):
    """A card of your own, in the author API's shape. On a create, `slug` (made from the front)
    and `section` (the deck's first) may be left out."""

    client_id = CLIENT_ID

    class Meta(AuthorCardSerializer.Meta):
        fields = [f for f in AuthorCardSerializer.Meta.fields if f != "demos"] + ["client_id"]

    def get_fields(self):
        fields = super().get_fields()
        fields["section"].required = fields["slug"].required = False
        return fields


def _card_fields(validated: dict) -> dict:
    fields = {k: v for k, v in validated.items() if k not in ("client_id", "note")}
    if "section" in fields:
        fields["section"] = fields["section"]["slug"]
    if "source" in fields:
        fields["card_source"] = fields.pop("source")
    return fields


class OwnCardList(generics.ListCreateAPIView):
    """A deck of yours: its cards in section order, 100 a page (`?page=`). POST adds a note (a
    basic card, a reversed pair, or a card per cloze deletion) at the end of its section; it
    is in your review queue as new."""

    permission_classes = OWN
    serializer_class = OwnCardSerializer
    pagination_class = PagedResults

    def deck(self) -> Deck:
        return selectors.deck_for_owner(self.request.user, self.kwargs["slug"])

    def get_queryset(self):
        latest = Revision.objects.filter(card=OuterRef("pk")).order_by("-number")
        return (
            self.deck()
            .cards.select_related("deck", "section")
            .annotate(latest_revision=Subquery(latest.values("number")[:1]))
            .order_by("section__order", "section_id", "order", "id")
        )

    @extend_schema(
        responses={
            201: OwnCardSerializer, 200: OpenApiResponse(OwnCardSerializer, REPEAT), 409: QUOTA
        },
    )  # fmt: skip
    def post(self, request, *args, **kwargs):
        deck = self.deck()
        body = OwnCardSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = _card_fields(body.validated_data)
        fields.pop("changes_answer", None)  # a new card has no schedule to change
        if not fields.get("slug"):
            fields["slug"] = services.own_card_slug(deck, fields.get("front", ""))
        if not fields.get("section"):
            first = deck.sections.order_by("order", "id").first()
            fields["section"] = first.slug if first else ""

        def create():
            return services.card_create(
                deck=deck, author=request.user, note=body.validated_data.get("note", ""),
                source=services.Source.API, **fields,
            )  # fmt: skip

        card, made = services.client_write_once(
            user=request.user, client_id=body.validated_data.get("client_id"), kind="card",
            make=lambda: _within_quota(request.user, create),
        )  # fmt: skip
        code = status.HTTP_201_CREATED if made else status.HTTP_200_OK
        return Response(OwnCardSerializer(card).data, status=code)


class OwnCardDetail(generics.RetrieveUpdateDestroyAPIView):
    """One card of yours. PUT/PATCH edit its note in place with a revision (your schedule is
    kept unless `changes_answer`); DELETE takes its note out of your deck and queue (the
    history stays), as the page's Delete does."""

    permission_classes = OWN
    serializer_class = OwnCardSerializer
    queryset = Card.objects.none()

    def get_object(self):
        return selectors.card_for_owner(self.request.user, self.kwargs["pk"])

    def perform_update(self, serializer):
        card, user = serializer.instance, self.request.user
        _within_quota(user, lambda: services.card_edit(
            card=card, author=user, note=serializer.validated_data.get("note", ""),
            source=services.Source.API, **_card_fields(serializer.validated_data),
        ))  # fmt: skip

    def perform_destroy(self, card):
        services.card_retire(card=card, by=self.request.user)


class OwnCardRevisions(generics.ListAPIView):
    """The card's revisions, newest first."""

    permission_classes = OWN
    serializer_class = RevisionSerializer
    pagination_class = None

    def get_queryset(self):
        card = selectors.card_for_owner(self.request.user, self.kwargs["pk"])
        return card.revisions.select_related("author", "restored_from")


class OwnRevisionRestore(APIView):
    permission_classes = OWN

    @extend_schema(
        request=RestoreSerializer,
        responses={201: RevisionSerializer, 200: OpenApiResponse(description="already current")},
    )
    def post(self, request, pk: int):
        """Restore a revision of your card: its fields become current, as a new revision."""
        revision = selectors.revision_for_owner(request.user, pk)
        body = RestoreSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        new = _within_quota(request.user, lambda: services.revision_restore(
            revision=revision, author=request.user,
            changes_answer=body.validated_data["changes_answer"],
        ))  # fmt: skip
        if new is None:
            return Response({"detail": f"revision {revision.number} is already current"})
        return Response(RevisionSerializer(new).data, status=status.HTTP_201_CREATED)


# --- images, import, export ---------------------------------------------------------------------


class MediaUploadSerializer(serializers.Serializer):
    image = serializers.ImageField(help_text="PNG, JPEG, GIF or WebP; checked and re-encoded")


class MediaSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="the name card text gives it")
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    size = serializers.IntegerField()
    markdown = serializers.CharField(help_text="what to write in a card to show it")


class OwnMediaUpload(APIView):
    permission_classes = OWN
    parser_classes = [MultiPartParser, FormParser]
    throttle_scope = "write"

    def initialize_request(self, request, *args, **kwargs):
        # Cut the upload one byte past the limit as it streams in, before anything parses it.
        request.upload_handlers.insert(0, ImportUploadCut(request, limit=settings.MEDIA_MAX_BYTES))
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": MediaUploadSerializer},
        responses={201: MediaSerializer, 409: QUOTA},
    )
    def post(self, request, slug: str):
        """Add an image to your deck; the answer gives the Markdown that shows it in a card.
        The same image again is the one image (its name is kept)."""
        deck = selectors.deck_for_owner(request.user, slug)
        upload = request.data.get("image")
        if upload is None or not hasattr(upload, "read"):
            raise ValidationError({"image": "Choose an image file to add."})
        data = upload.read(settings.MEDIA_MAX_BYTES + 1)
        if len(data) > settings.MEDIA_MAX_BYTES:
            raise ValidationError({"image": f"{upload.name} is larger than the limit "
                                            f"({settings.MEDIA_MAX_BYTES:,} bytes)."})  # fmt: skip
        media = services.media_upload(deck=deck, user=request.user, name=upload.name, data=data)
        body = {"name": media.name, "width": media.width, "height": media.height,
                "size": media.size, "markdown": f"![](<media:{media.name}>)"}  # fmt: skip
        return Response(MediaSerializer(body).data, status=status.HTTP_201_CREATED)


def own_job_data(job: ImportJob) -> dict:
    return import_job_data(job) | {"url": f"/api/my/imports/{job.pk}/"}


class OwnDeckImport(APIView):
    permission_classes = OWN
    parser_classes = [MultiPartParser, FormParser]
    throttle_scope = "write"  # config.security.WriteThrottle: an import is costly work

    def initialize_request(self, request, *args, **kwargs):
        request.upload_handlers.insert(0, ImportUploadCut(request))
        return super().initialize_request(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": ImportSerializer},
        parameters=[DRY_RUN],
        responses={
            200: ImportResultSerializer, 201: ImportResultSerializer, 202: ImportJobSerializer,
            409: OpenApiResponse(description="Past your quota, or another import of this deck "
                                             "is queued or running; nothing imported."),
        },
    )  # fmt: skip
    def post(self, request, slug: str):
        """Import a file (CSV, Anki text, an .apkg package, or RayDeck's yaml/json; at most
        2 MiB) into your deck, whatever deck the file names, in one transaction; `deck`,
        `title` and `publish` are not used. With ?dry_run=1 nothing is written and the counts
        preview it. A file over 64 KiB is imported by the worker: 202 with the job (GET its
        url)."""
        deck = selectors.deck_for_owner(request.user, slug)
        form, dry_run, filename, data = upload_read(request)
        options = {
            "fmt": form.get("format"), "deck_slug": deck.slug, "into": deck.slug,
            "deck_title": "", "section": form.get("section", ""), "publish": False,
        }  # fmt: skip
        if INLINE_IMPORT_MAX_BYTES < len(data) <= MAX_FILE_BYTES:
            try:
                services.import_precheck(data=data, filename=filename, fmt=options["fmt"],
                                         deck_slug=deck.slug)  # fmt: skip
            except ContentError as exc:
                raise ValidationError({"file": f"Nothing was imported. {exc}"}) from None
            job = services.import_job_create(user=request.user, data=data, filename=filename,
                                             options=options, dry_run=dry_run)  # fmt: skip
            body = ImportJobSerializer(own_job_data(job)).data
            code = status.HTTP_503_SERVICE_UNAVAILABLE if job.status == "failed" else 202
            return Response(body, status=code, headers={"Location": body["url"]})
        try:
            doc, result = services.file_import(data=data, filename=filename, options=options,
                                               user=request.user, dry_run=dry_run)  # fmt: skip
        except ContentError as exc:
            raise ValidationError({"file": f"Nothing was imported. {exc}"}) from None
        out = services.import_result_data(result, dry_run=dry_run, notes=doc.notes)
        return Response(ImportResultSerializer(out).data, status=200 if dry_run else 201)


class OwnImportJob(APIView):
    permission_classes = OWN

    @extend_schema(responses={200: ImportJobSerializer})
    def get(self, request, pk: int):
        """An import job of yours: queued, running (with progress), succeeded (with the counts)
        or failed (with the reason nothing was imported)."""
        job = ImportJob.objects.filter(pk=pk, user=request.user).first()
        if job is None:
            raise NotFound(f"You have no import job {pk}.")
        return Response(ImportJobSerializer(own_job_data(job)).data)


class OwnDeckExport(APIView):
    permission_classes = OWN

    @extend_schema(
        parameters=[OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=EXPORT_FORMATS)],
        responses={
            (200, CONTENT_TYPES[fmt].split(";")[0]): (
                OpenApiTypes.OBJECT if fmt == "json"
                else OpenApiTypes.BINARY if fmt == "apkg" else OpenApiTypes.STR
            )
            for fmt in EXPORT_FORMATS
        },
    )  # fmt: skip
    def get(self, request, slug: str, fmt: str):
        """Download your deck as yaml, json, csv or apkg (Anki, with its images)."""
        return export_download(selectors.deck_for_owner(request.user, slug), fmt)


# --- the card browser's bulk actions ------------------------------------------------------------

SCHEDULE_ACTIONS = ("suspend", "unsuspend", "reschedule", "forget")
OWN_ACTIONS = ("tag", "move")


class BulkSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=[*SCHEDULE_ACTIONS, *OWN_ACTIONS])
    cards = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=10**11), min_length=1,
        help_text=f"the chosen cards' ids, at most {bulk.BULK_MAX}",
    )  # fmt: skip
    days = serializers.IntegerField(
        required=False, min_value=0, max_value=bulk.RESCHEDULE_MAX_DAYS,
        help_text="reschedule: due in this many days (0: today)",
    )  # fmt: skip
    tag = JSONCharField(required=False, allow_blank=True, help_text="tag: tags to add")
    untag = JSONCharField(required=False, allow_blank=True, help_text="tag: tags to remove")
    deck = SlugTextField(required=False, help_text="move: the slug of a deck of yours")

    def validate_cards(self, cards: list[int]) -> list[int]:
        if len(cards) > bulk.BULK_MAX:
            raise serializers.ValidationError(f"choose at most {bulk.BULK_MAX} cards at once")
        return list(dict.fromkeys(cards))

    def validate(self, data):
        if data["action"] == "reschedule" and data.get("days") is None:
            raise serializers.ValidationError(
                {"days": "say in how many days the cards are due (0: today)"}
            )
        if data["action"] == "move" and not data.get("deck"):
            raise serializers.ValidationError({"deck": "name one of your decks to move them to"})
        return data


class BulkResultSerializer(serializers.Serializer):
    action = serializers.CharField()
    done = serializers.IntegerField(
        help_text="suspend, unsuspend, reschedule: the chosen cards you may see; forget: those "
        "that had a schedule; tag, move: your own cards that changed"
    )
    left = serializers.IntegerField(
        help_text="tag, move: chosen cards not of your own decks, left as they are"
    )
    message = serializers.CharField(help_text="what was done, as the browser page says it")


class CardsBulk(APIView):
    permission_classes = OWN
    throttle_scope = "write"

    @extend_schema(request=BulkSerializer, responses=BulkResultSerializer)
    def post(self, request):
        """The card browser's bulk actions on the chosen cards (at most 1,000): suspend,
        unsuspend, reschedule (due in `days`) or forget them in your schedule (any card you may
        see); tag (add `tag`, remove `untag`) or move to your deck `deck` your own cards among
        them (the others are left as they are). Sent again, the same request leaves the same
        state."""
        body = BulkSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data, user = body.validated_data, request.user
        ids, action, left = data["cards"], data["action"], 0
        if action in ("suspend", "unsuspend"):
            done = bulk.cards_suspend(user=user, card_ids=ids, suspended=action == "suspend")
            message = f"{done} card{'s' if done != 1 else ''} {action}ed."
        elif action == "reschedule":
            done = bulk.cards_reschedule(user=user, card_ids=ids, days=data["days"])
            message = f"{done} card{'s' if done != 1 else ''} due in {data['days']} days."
        elif action == "forget":
            done = bulk.cards_forget(user=user, card_ids=ids)
            message = f"{done} card{'s' if done != 1 else ''} forgotten: new again."
        else:
            if action == "tag":
                done = services.own_cards_tag(user=user, card_ids=ids, add=data.get("tag", ""),
                                              remove=data.get("untag", ""))  # fmt: skip
                verb = "retagged"
            else:
                target = selectors.own_decks(user).filter(slug=data["deck"]).first()
                if target is None:
                    raise ServiceError("choose one of your own decks to move the cards to",
                                       field="deck")  # fmt: skip
                done = services.own_cards_move(user=user, card_ids=ids, deck=target)
                verb = f"moved to {target.title}"
            left = len(ids) - Card.objects.filter(pk__in=ids, deck__owner=user).count()
            message = f"{done} card{'s' if done != 1 else ''} {verb}."
            if left:
                message += f" {left} of the shipped decks left as they are."
        return Response({"action": action, "done": done, "left": left, "message": message})
