"""Author pages for decks, their authors and sections."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from apps.authoring import selectors, services
from apps.authoring.formats import EXPORT_FORMATS
from apps.authoring.forms import (
    DeckAuthorsForm,
    DeckCreateForm,
    DeckForm,
    DeckPublishForm,
    SectionForm,
)
from apps.authoring.forms.base import direction_posted
from apps.authoring.views.base import author_required, form_write
from apps.decks.markdown import render_markdown
from apps.quizzes.models import Quiz
from config.errors import Conflict


@author_required
def index(request):
    decks = selectors.author_deck_list(request.user).order_by("title")
    return render(
        request, "authoring/index.html",
        {"decks": decks, "export_formats": EXPORT_FORMATS, "errors": {}},
    )  # fmt: skip


@require_POST
@author_required
def deck_create(request):
    form = DeckCreateForm(request.POST)
    ok, deck = form_write(
        form, lambda: services.deck_create(user=request.user, **form.cleaned_data)
    )
    if not ok:
        decks = selectors.author_deck_list(request.user).order_by("title")
        context = {"decks": decks, "export_formats": EXPORT_FORMATS, "errors": form.messages(),
                   "values": form.values()}  # fmt: skip
        return render(request, "authoring/index.html", context, status=400)
    messages.success(request, f"Deck {deck.slug} created as a draft.")
    return redirect("authoring:deck", slug=deck.slug)


@require_POST
@author_required
def deck_publish(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    form = DeckPublishForm(request.POST)
    form.is_valid()  # every value is acceptable: "1" publishes, anything else unpublishes
    services.deck_update(deck=deck, is_published=form.cleaned_data["publish"])
    if request.htmx:
        deck = selectors.author_deck_list(request.user).get(pk=deck.pk)
        return render(request, "authoring/index.html#deck-row", {"deck": deck,
                      "export_formats": EXPORT_FORMATS})  # fmt: skip
    state = "published" if deck.is_published else "a draft"
    messages.success(request, f"{deck.title} is now {state}.")
    back = form.cleaned_data["next"]
    safe = url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return redirect(back if safe else reverse("authoring:index"))


@author_required
def deck(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    form = DeckForm(request.POST if request.method == "POST" else None)
    values = {"title": deck.title, "description": deck.description,
              "objectives": "\n".join(deck.objectives)}  # fmt: skip
    if form.is_bound:
        ok, _ = form_write(form, lambda: services.deck_update(deck=deck, **form.cleaned_data))
        if ok:
            messages.success(request, "Deck saved.")
            return redirect("authoring:deck", slug=deck.slug)
        values = form.values()
        deck.refresh_from_db()  # the heading shows what is saved, the form what was typed
    errors = form.messages() if form.is_bound else {}
    context = {
        "deck": deck,
        "values": values,
        "description_preview": render_markdown(values["description"]),
        "sections": selectors.deck_structure(deck, request.GET.get("page", 1)),
        "quizzes": deck.quizzes.select_related("section"),
        "quiz_kinds": Quiz.Kind.choices,
        "authors": deck.authors.select_related("user").order_by("user__username"),
        "errors": errors,
        "export_formats": EXPORT_FORMATS,
    }
    return render(request, "authoring/deck.html", context, status=400 if errors else 200)


@require_POST
@author_required
def deck_authors(request, slug: str):
    """Staff grant or revoke a user's authorship of one deck."""
    deck = selectors.deck_for_author(request.user, slug)
    form = DeckAuthorsForm(request.POST)

    def write():
        if form.cleaned_data["revoke"] is not None:
            services.deck_author_revoke(
                deck=deck, by=request.user, user_id=form.cleaned_data["revoke"]
            )
            return "Author removed."
        grant = services.deck_author_grant(
            deck=deck, by=request.user, username=form.cleaned_data["username"]
        )
        return f"{grant.user.username} may now author {deck.title}."

    ok, done = form_write(form, write)
    if ok:
        messages.success(request, done)
    else:
        messages.error(request, " ".join(form.messages().values()))
    return redirect(reverse("authoring:deck", args=[deck.slug]) + "#authors")


def structure(request, deck, page: int):
    """After a move: the page of the deck's structure that shows what moved, as the htmx
    fragment, or the deck page there."""
    if request.htmx:
        context = {"deck": deck, "sections": selectors.deck_structure(deck, page)}
        return render(request, "authoring/deck.html#structure", context)
    return redirect(
        reverse("authoring:deck", args=[deck.slug]) + (f"?page={page}" if page > 1 else "")
    )


@require_POST
@author_required
def section_create(request, slug: str):
    deck = selectors.deck_for_author(request.user, slug)
    form = SectionForm(request.POST)
    ok, _ = form_write(form, lambda: services.section_create(deck=deck, **form.section_fields()))
    if not ok:
        messages.error(request, " ".join(form.messages().values()))
    return redirect("authoring:deck", slug=deck.slug)


@author_required
def section(request, pk: int):
    section = selectors.section_for_author(request.user, pk)
    form = SectionForm(request.POST if request.method == "POST" else None)
    values = {"slug": section.slug, "title": section.title, "summary": section.summary}
    errors = {}
    if form.is_bound and form.is_valid() and form.cleaned_data["delete"]:
        try:
            services.section_delete(section=section)
        except Conflict as exc:  # shown in place, the form as it was
            errors = {"section": exc.message}
        else:
            messages.success(request, f"Section {section.slug} deleted.")
            return redirect("authoring:deck", slug=section.deck.slug)
    elif form.is_bound:
        ok, _ = form_write(
            form, lambda: services.section_update(section=section, **form.section_fields())
        )
        if ok:
            messages.success(request, "Section saved.")
            return redirect("authoring:deck", slug=section.deck.slug)
        values = {name: form.values()[name] for name in values}
        errors = form.messages()
        section.refresh_from_db()  # the heading shows what is saved, the form what was typed
    return render(
        request, "authoring/section.html",
        {"section": section, "errors": errors, "values": values,
         "summary_preview": render_markdown(values["summary"])},
        status=400 if errors else 200,
    )  # fmt: skip


@require_POST
@author_required
def section_move(request, pk: int):
    section = selectors.section_for_author(request.user, pk)
    services.section_move(section=section, direction=direction_posted(request.POST))
    return structure(request, section.deck, selectors.structure_page_of(section=section))
