"""Cleaning shared by every author write: text as stored, tags, slugs, and a row's place among
its siblings (moving it one place, closing the gap it leaves). Each cleaning refuses with a
ServiceError naming the field."""

from django.db.models import F, Max, Q

from apps.decks.content import SLUG_RE, SLUG_RULE
from config.errors import ServiceError


def text_clean(value) -> str:
    """Author text as stored: ends stripped, and line breaks as plain \\n. Browsers send a
    textarea's line breaks as \\r\\n, which made an untouched save look like an edit."""
    return (value or "").replace("\r\n", "\n").replace("\r", "\n").strip()


def tags_clean(value) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        raise ServiceError("tags must be a list of words, or words separated by ,", field="tags")
    comma = next((t for t in value if "," in t), None)
    if comma is not None:
        raise ServiceError(f"a tag cannot contain a comma: {comma!r}", field="tags")
    return list(dict.fromkeys(t.strip() for t in value if t.strip()))


def slug_check(field: str, value: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ServiceError(f"{field} is required", field=field)
    if len(value) > 80 or not SLUG_RE.match(value):
        raise ServiceError(f"{value!r} {SLUG_RULE}", field=field)
    return value


# Rows shifted by one statement when a row leaves its siblings: each statement stays short,
# however many siblings there are (a 16,512-card section is legal).
SHIFT_BATCH = 2000


def order_swap(siblings, row, direction: str, *, parent) -> bool:
    """Swap `row` with its neighbour among `siblings` (the rows of `parent` in (order, id)
    order): two rows written, whatever the number of siblings. Moves among one parent's rows take
    turns on its row lock, so each swaps real neighbours. False at either end or for a direction
    other than up/down."""
    if direction not in ("up", "down"):
        return False
    type(parent).objects.select_for_update(no_key=True).filter(pk=parent.pk).values_list("pk").get()
    current = siblings.filter(pk=row.pk).values_list("order", flat=True).first()
    if current is None:
        return False
    if direction == "up":
        nearer = siblings.filter(Q(order__lt=current) | Q(order=current, pk__lt=row.pk))
        nearer = nearer.order_by("-order", "-pk")
    else:
        nearer = siblings.filter(Q(order__gt=current) | Q(order=current, pk__gt=row.pk))
        nearer = nearer.order_by("order", "pk")
    neighbour = nearer.values_list("pk", "order").first()
    if neighbour is None:
        return False
    other, other_order = neighbour
    if other_order == current:  # a tie older data left: number them 0, 1, 2... first
        order_renumber(siblings)
        return order_swap(siblings, row, direction, parent=parent)
    siblings.filter(pk=row.pk).update(order=other_order)
    siblings.filter(pk=other).update(order=current)
    row.order = other_order
    return True


def order_renumber(siblings) -> None:
    """Number `siblings` 0, 1, 2... in their (order, id) order, writing only the rows out of
    place, a few hundred to a statement."""
    rows = siblings.order_by("order", "pk").values_list("pk", "order")
    moved = [siblings.model(pk=pk, order=at) for at, (pk, order) in enumerate(rows) if order != at]
    siblings.bulk_update(moved, ["order"], batch_size=500)


def order_close_gap(siblings, order: int) -> None:
    """A row left `siblings` from place `order`: the rows after it move up one place, so the
    places stay 0, 1, 2... (as the deck file loader numbers them, and an import of the deck's
    own export finds nothing changed). SHIFT_BATCH places to a statement."""
    top = siblings.aggregate(n=Max("order"))["n"]
    if top is None:
        return
    for low in range(order, top, SHIFT_BATCH):
        siblings.filter(order__gt=low, order__lte=low + SHIFT_BATCH).update(order=F("order") - 1)
