"""A GIN index on the cards' full-text document (front and back) for the card browser, on
PostgreSQL only: SQLite searches by substring and has no such index. The expression is the one
apps.study.browse.search_vector() filters on, so PostgreSQL uses the index (a test on PostgreSQL
checks the plan). Not in Card.Meta.indexes (that would ask every database for GIN), hence no
migration state."""

from django.db import migrations

INDEX_NAME = "card_fulltext_english"


def _index():
    from django.contrib.postgres.indexes import GinIndex
    from django.contrib.postgres.search import SearchVector

    return GinIndex(SearchVector("front", "back", config="english"), name=INDEX_NAME)


def index_add(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(apps.get_model("decks", "Card"), _index())


def index_remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("decks", "Card"), _index())


class Migration(migrations.Migration):
    dependencies = [
        ("decks", "0001_initial"),
        ("study", "0003_cardstate_leech"),
    ]

    operations = [migrations.RunPython(index_add, index_remove, elidable=False)]
