"""Cleaning shared by every author write: text as stored, tags, slugs, and moving a row one
place among its siblings. Each raises django's ValidationError naming the field."""

from django.core.exceptions import ValidationError

from apps.decks.content import SLUG_RE, SLUG_RULE


def text_clean(value) -> str:
    """Author text as stored: ends stripped, and line breaks as plain \\n. Browsers send a
    textarea's line breaks as \\r\\n, which made an untouched save look like an edit."""
    return (value or "").replace("\r\n", "\n").replace("\r", "\n").strip()


def tags_clean(value) -> list[str]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value):
        raise ValidationError({"tags": "tags must be a list of words, or words separated by ,"})
    comma = next((t for t in value if "," in t), None)
    if comma is not None:
        raise ValidationError({"tags": f"a tag cannot contain a comma: {comma!r}"})
    return list(dict.fromkeys(t.strip() for t in value if t.strip()))


def slug_check(field: str, value: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ValidationError({field: f"{field} is required"})
    if len(value) > 80 or not SLUG_RE.match(value):
        raise ValidationError({field: f"{value!r} {SLUG_RULE}"})
    return value


def order_swap(siblings, row, direction: str) -> bool:
    """Swap `row` with its neighbour among `siblings` (locked, in order) and renumber them 0, 1,
    2...; False at either end or for a direction other than up/down."""
    rows = list(siblings.order_by("order", "id").select_for_update())
    index = next(i for i, item in enumerate(rows) if item.pk == row.pk)
    other = index - 1 if direction == "up" else index + 1
    if direction not in ("up", "down") or not 0 <= other < len(rows):
        return False
    rows[index], rows[other] = rows[other], rows[index]
    for position, item in enumerate(rows):
        item.order = position
    siblings.model.objects.bulk_update(rows, ["order"])
    return True
