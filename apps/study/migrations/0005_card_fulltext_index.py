"""GIN indexes on the cards' full-text document (front and back) and tags for the card browser,
on PostgreSQL only: SQLite searches by substring and has no such index. The expression is the one
apps.browse.selectors.search_vector() filters on, so PostgreSQL uses the index (a test on PostgreSQL
checks the plan). Not in Card.Meta.indexes (that would ask every database for GIN), hence no
migration state."""

from django.db import migrations

INDEX_NAME = "card_fulltext_english"


TAGS_INDEX_NAME = "card_tags_gin"


def _indexes():
    from django.contrib.postgres.indexes import GinIndex
    from django.contrib.postgres.search import SearchVector

    return [
        GinIndex(SearchVector("front", "back", config="english"), name=INDEX_NAME),
        # The browser's tag filter (tags @> '["tag"]').
        GinIndex(fields=["tags"], name=TAGS_INDEX_NAME),
    ]


def index_add(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for index in _indexes():
            schema_editor.add_index(apps.get_model("decks", "Card"), index)


def index_remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for index in _indexes():
            schema_editor.remove_index(apps.get_model("decks", "Card"), index)


class Migration(migrations.Migration):
    dependencies = [
        ("decks", "0002_card_kind_source_and_retired"),
        ("study", "0004_cardstate_leech"),
    ]

    operations = [migrations.RunPython(index_add, index_remove, elidable=False)]
