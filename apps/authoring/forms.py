"""The author pages' forms. Each reads one page's post: the fields a person types are taken as
typed (the services clean and check them, with the messages the API gives too); what only a page
sends (a checkbox, whole minutes, a percentage, the editor's option lines) is turned into what the
service takes here. `AuthorForm.refused(exc)` puts a service's ServiceError on the fields it
names, so the page shows it in place.

The question editor's one-line-per-option text, to and from the quiz file format:
Choices:     `[x] right choice` / `[ ] wrong choice`
Statements:  `[T] a true statement` / `[F] a false statement`
Pairs:       `left side => right side`
A sizing drill (numeric) takes its numbers and formula in the options box as YAML, the keys of
the quiz file (given, derived, formula, tolerance, unit, solution); a debugging drill's tool
output goes in the evidence box, as YAML too (tool, source, output).
"""

import re

from django import forms
from django.core.exceptions import ValidationError

from apps.authoring.formats.export import block_yaml
from apps.decks.content import ContentError, read_yaml
from apps.quizzes.content import EVIDENCE_KEYS, SIZING_KEYS
from apps.quizzes.models import Question
from config.errors import ServiceError

OPTION_FIELD = {"single": "choices", "multi": "choices", "true_false": "statements",
                "match": "pairs", "numeric": "given"}  # fmt: skip
OPTION_HELP = {
    "choices": "One choice a line: [x] for a right choice, [ ] for a wrong one.",
    "statements": "One statement a line: [T] if it is true, [F] if it is false.",
    "pairs": "One pair a line: left side => right side.",
    "given": "A sizing drill: YAML with given (the drawn numbers), derived, formula, tolerance,"
    " unit and solution, as in the quiz file.",
}
DRILL_KEYS = ("given", *SIZING_KEYS)


def _yaml_mapping(text: str, field: str, allowed) -> dict:
    try:
        data = read_yaml(text, field)
    except ContentError as exc:
        raise ValidationError({field: exc.problem}) from None
    if not isinstance(data, dict):
        raise ValidationError({field: f"write YAML keys: {', '.join(allowed)}"})
    unknown = sorted(set(map(str, data)) - set(allowed))
    if unknown:
        raise ValidationError(
            {field: f"unknown key {unknown[0]!r} (allowed: {', '.join(allowed)})"}
        )
    return data


def evidence_text(data: dict) -> str:
    return block_yaml(data["evidence"]) if data.get("evidence") else ""


def evidence_parse(text: str) -> dict:
    """The evidence box -> {"evidence": {...}}, or nothing when it is empty."""
    if not text.strip():
        return {}
    return {"evidence": _yaml_mapping(text, "evidence", sorted(EVIDENCE_KEYS))}


_MARK = re.compile(r"^\[(.?)\]\s*(.*)$")


def options_text(data: dict) -> str:
    """The options of a question document as editor lines."""
    if data.get("kind") == "numeric":
        return block_yaml({k: data[k] for k in DRILL_KEYS if k in data})
    if "choices" in data:
        return "\n".join(f"[{'x' if c['correct'] else ' '}] {c['text']}" for c in data["choices"])
    if "statements" in data:
        return "\n".join(f"[{'T' if s['answer'] else 'F'}] {s['text']}" for s in data["statements"])
    return "\n".join(f"{p['left']} => {p['right']}" for p in data.get("pairs", []))


def options_parse(kind: str, text: str) -> dict[str, list]:
    """Editor lines -> {"choices" | "statements" | "pairs": [...]}; errors name the line."""
    field = OPTION_FIELD.get(kind)
    if field is None:
        raise ValidationError({"kind": f"kind must be one of {', '.join(OPTION_FIELD)}"})
    if kind == "numeric":
        return _yaml_mapping(text, "options", DRILL_KEYS)
    items: list[dict[str, str | bool]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if field == "pairs":
            left, arrow, right = line.partition("=>")
            if not arrow:
                raise ValidationError({"options": f"line {number}: write it as left => right"})
            items.append({"left": left.strip(), "right": right.strip()})
            continue
        match = _MARK.match(line)
        mark, said = (
            (match.group(1).strip().lower(), match.group(2).strip()) if match else ("?", "")
        )
        if field == "choices":
            if mark not in ("x", ""):
                raise ValidationError({"options": f"line {number}: start it with [x] or [ ]"})
            items.append({"text": said, "correct": mark == "x"})
        else:
            if mark not in ("t", "f"):
                raise ValidationError({"options": f"line {number}: start it with [T] or [F]"})
            items.append({"text": said, "answer": mark == "t"})
    return {field: items}


# Forms -------------------------------------------------------------------------------------


class Text(forms.CharField):
    """Text as typed (the service strips and checks it); absent or empty is ""."""

    def __init__(self, **kwargs):
        super().__init__(required=False, strip=False, **kwargs)


class Texts(forms.Field):
    """Every value a multiple select or a group of checkboxes sent, as text."""

    widget = forms.MultipleHiddenInput

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def to_python(self, value) -> list[str]:
        return [str(v) for v in value or []]


class Ticked(forms.Field):
    """A checkbox the service takes as a boolean: "on", "1" or "true" tick it; absent is
    False."""

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def to_python(self, value) -> bool:
        return value not in self.empty_values and str(value) in ("on", "1", "true")


class AuthorForm(forms.Form):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refusals: dict[str, list[str]] = {}  # refused fields the form has not (a service's)

    def is_valid(self) -> bool:
        return super().is_valid() and not self.refusals

    def refused(self, exc: ServiceError | ValidationError) -> None:
        """Show a refusal on the fields it names (one the form has not, and one that names no
        field, above the form): a service's ServiceError, or a ValidationError of the form's
        own cleaning (the option lines' parser)."""
        if isinstance(exc, ServiceError):
            named = {field: [message] for field, message in exc.fields.items()}
            if not named:
                self.add_error(None, exc.message)
                return
        elif hasattr(exc, "error_dict"):
            named = exc.message_dict
        else:
            self.add_error(None, exc)
            return
        for field, errors in named.items():
            if field in self.fields:
                self.add_error(field, errors)
            else:
                self.refusals.setdefault(field, []).extend(errors)

    def messages(self) -> dict[str, str]:
        """Field -> what is wrong with it, as the templates show it ("__all__" for the rest)."""
        shown = {field: [str(e) for e in errors] for field, errors in self.errors.items()}
        for field, errors in self.refusals.items():
            shown.setdefault(field, []).extend(errors)
        return {field: " ".join(errors) for field, errors in shown.items()}

    def values(self) -> dict:
        """What the person typed, to fill the form in again."""
        data = getattr(self, "cleaned_data", {})
        return {name: data.get(name, self.data.get(name, "")) for name in self.fields}

    def posted(self, *names: str) -> dict:
        """The cleaned fields among `names` that the post carried (a field the page does not
        show is not sent, and so not changed)."""
        return {name: self.cleaned_data[name] for name in names if name in self.data}


class DeckCreateForm(AuthorForm):
    slug = Text()
    title = Text()


class DeckForm(AuthorForm):
    title = Text()
    description = Text()
    objectives = Text()


class DeckPublishForm(AuthorForm):
    publish = Text()
    next = Text()

    def clean_publish(self) -> bool:
        return self.cleaned_data["publish"] == "1"


class DeckAuthorsForm(AuthorForm):
    """Grant (username) or, when `revoke` names a user id, revoke one author."""

    username = Text()
    revoke = Text()

    def clean_revoke(self) -> int | None:
        user_id = self.cleaned_data["revoke"]
        if not user_id:
            return None
        if not user_id.isdigit():
            raise ValidationError(f"No author to remove: {user_id!r} is no user id.")
        return int(user_id)


class SectionForm(AuthorForm):
    slug = Text()
    title = Text()
    summary = Text()
    delete = Ticked()

    def section_fields(self) -> dict:
        return {name: self.cleaned_data[name] for name in ("slug", "title", "summary")}


class MoveForm(AuthorForm):
    direction = Text()  # the service moves for "up" and "down" and ignores anything else


def direction_posted(data) -> str:
    """The direction a move button posted (any text: the move services ignore all but up/down)."""
    form = MoveForm(data)
    form.is_valid()
    return form.cleaned_data["direction"]


class CardForm(AuthorForm):
    """A card's fields (an existing card's form sends no kind: it is set at creation), why it
    was edited, and the quiz questions and demos it links to when the page showed them."""

    section = Text()
    slug = Text()
    kind = Text()
    front = Text()
    back = Text()
    why = Text()
    card_source = Text()
    tags = Text()
    note = Text()
    changes_answer = Ticked()
    type_answer = Ticked()
    type_answer_shown = Text()
    questions = Texts()
    questions_shown = Text()
    demos = Texts()
    demos_shown = Text()
    back_url = Text()  # a card edited from the review page: where the page returns

    def clean_questions(self) -> list[int]:
        picked = self.cleaned_data["questions"]
        if not all(pk.isdigit() for pk in picked):
            raise ValidationError("not a quiz question of this deck")
        return [int(pk) for pk in picked]

    def card_fields(self) -> dict:
        names = ("section", "slug", "front", "back", "why", "card_source", "tags")
        fields = {**{name: self.cleaned_data[name] for name in names}, **self.posted("kind")}
        if "type_answer_shown" in self.data:  # a page that showed the box sent it, ticked or not
            fields["type_answer"] = self.cleaned_data["type_answer"]
        return fields

    def links(self, deck) -> dict:
        """questions= and demos= for card_edit, for the lists the page showed."""
        links = {}
        if "questions_shown" in self.data:
            wanted = self.cleaned_data["questions"]
            links["questions"] = Question.objects.filter(quiz__deck=deck, pk__in=wanted)
        if "demos_shown" in self.data:
            links["demos"] = self.cleaned_data["demos"]
        return links


class RestoreForm(AuthorForm):
    changes_answer = Ticked()


PREVIEW_FIELDS = ("front", "back", "why", "prompt", "explanation", "summary", "description")


class PreviewForm(AuthorForm):
    """One Markdown field of any author form (whichever was sent), a card's kind, and the deck
    whose images the text may show."""

    kind = Text()
    preview_deck = Text()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in PREVIEW_FIELDS:
            self.fields[name] = Text()

    def field(self) -> str:
        return next((name for name in PREVIEW_FIELDS if name in self.data), "")


class QuizForm(AuthorForm):
    slug = Text()
    title = Text()
    kind = Text()
    section = Text()
    pass_percent = Text()
    time_limit_minutes = Text()
    shuffle = Ticked()

    def clean(self):
        try:
            percent = self.cleaned_data.get("pass_percent") or "70"
            self.cleaned_data["pass_mark"] = int(percent) / 100
            minutes = (self.cleaned_data.get("time_limit_minutes") or "").strip()
            self.cleaned_data["time_limit_seconds"] = int(minutes) * 60 if minutes else None
        except ValueError:
            self.refused(
                ValidationError({"pass_mark": "pass mark and time limit are whole numbers"})
            )
        return self.cleaned_data

    def quiz_fields(self) -> dict:
        data = self.cleaned_data
        fields = {k: data[k] for k in ("slug", "title", "kind", "pass_mark", "time_limit_seconds")}
        return {**fields, "section": data["section"] or None, "shuffle": data["shuffle"]}


class QuestionForm(AuthorForm):
    """A question as the editor shows it, into the quiz file document question_save takes."""

    slug = Text()
    kind = Text()
    prompt = Text()
    explanation = Text()
    points = Text()
    options = Text()
    evidence = Text()
    cards = Texts()
    note = Text()

    def clean_slug(self) -> str:
        return self.cleaned_data["slug"].strip()

    def clean_points(self) -> int:
        try:
            return int(self.cleaned_data["points"] or "1")
        except ValueError:
            raise ValidationError("points must be a whole number from 1 to 100") from None

    def clean(self):
        data = self.cleaned_data
        if "kind" in data and "options" in data:
            try:
                data.update(options_parse(data["kind"], data["options"]))
            except ValidationError as exc:
                self.refused(exc)
        try:
            data.update(evidence_parse(data.get("evidence") or ""))
        except ValidationError as exc:
            self.refused(exc)
        return data

    def values(self) -> dict:
        return {**super().values(), "evidence": self.data.get("evidence", "")}

    def document(self) -> dict:
        data = self.cleaned_data
        doc = {k: data[k] for k in ("slug", "kind", "prompt", "explanation", "points", "cards")}
        extra = [*OPTION_HELP, *SIZING_KEYS]
        if isinstance(data.get("evidence"), dict):
            extra.append("evidence")
        return {**doc, **{k: data[k] for k in extra if k in data}}


class ImportForm(AuthorForm):
    """The import page: an upload with its options, or the confirmation of a preview."""

    file = forms.FileField(required=False, allow_empty_file=True)
    format = Text()
    deck = Text()
    title = Text()
    section = Text()
    commit = Text()
    preview = Text()  # the token of the preview a commit confirms

    def confirmed(self) -> str | None:
        return self.cleaned_data["preview"] if "preview" in self.data else None

    def options(self) -> dict:
        data = self.cleaned_data
        return {
            "fmt": data["format"] or None,
            "deck_slug": data["deck"].strip(),
            "deck_title": data["title"].strip(),
            "section": data["section"].strip(),
        }


WRONG_SLOTS = 3  # wrong solutions the exercise editor shows (the API and files take any number)


class ExerciseForm(AuthorForm):
    """The exercise editor: the file format's fields, the cards as slugs (spaces or commas) and
    up to WRONG_SLOTS wrong solutions, each with the mistake it makes."""

    slug = Text()
    title = Text()
    section = Text()
    cards = Text()
    source = Text()
    prompt = Text()
    starter = Text()
    examples = Text()
    tests = Text()
    reference = Text()
    note = Text()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for i in range(1, WRONG_SLOTS + 1):
            self.fields[f"wrong_{i}_mistake"] = Text()
            self.fields[f"wrong_{i}_code"] = Text()

    def document(self) -> dict:
        """What was typed, as an exercise entry of the file format (apps.exercises.content)."""
        data = self.cleaned_data
        doc = {
            name: data[name]
            for name in (
                "slug",
                "title",
                "section",
                "source",
                "prompt",
                "starter",
                "examples",
                "tests",
                "reference",
            )
        }
        doc["cards"] = [c for c in re.split(r"[\s,]+", data["cards"]) if c]
        doc["wrong"] = [
            {"mistake": data[f"wrong_{i}_mistake"], "code": data[f"wrong_{i}_code"]}
            for i in range(1, WRONG_SLOTS + 1)
            if data[f"wrong_{i}_mistake"].strip() or data[f"wrong_{i}_code"].strip()
        ]
        return doc

    @staticmethod
    def initial_from(doc) -> dict:
        values = {
            name: getattr(doc, name)
            for name in (
                "slug",
                "title",
                "section",
                "source",
                "prompt",
                "starter",
                "examples",
                "tests",
                "reference",
            )
        }
        values["cards"] = " ".join(doc.cards)
        for i, wrong in enumerate(doc.wrong[:WRONG_SLOTS], 1):
            values[f"wrong_{i}_mistake"] = wrong["mistake"]
            values[f"wrong_{i}_code"] = wrong["code"]
        return values


class SuggestionForm(AuthorForm):
    """A learner's suggested edit of a shipped card, from the review page."""

    front = Text()
    back = Text()
    why = Text()
    note = Text()


class SuggestionDecisionForm(AuthorForm):
    """An author's decision on a suggestion: accept (optionally as changing the answer) or
    reject, with an optional reply the learner reads."""

    decision = Text()
    reply = Text()
    changes_answer = Ticked()

    def clean_decision(self) -> str:
        decision = self.cleaned_data["decision"]
        if decision not in ("accept", "reject"):
            raise ValidationError("choose accept or reject")
        return decision


class OwnDeckForm(AuthorForm):
    title = Text()
    description = Text()


class OwnDeckDeleteForm(AuthorForm):
    confirm = Ticked()


class OwnBulkForm(AuthorForm):
    """The card browser's bulk edits of one's own cards: tag (add and/or remove) or move."""

    action = Text()
    cards = Texts()
    tag = Text()
    untag = Text()
    deck = Text()
    next = Text()

    def clean_action(self) -> str:
        action = self.cleaned_data["action"]
        if action not in ("tag", "move"):
            raise ValidationError("choose tag or move")
        return action

    def clean_cards(self) -> list[int]:
        picked = self.cleaned_data["cards"]
        if not picked:
            raise ValidationError("choose at least one card")
        if not all(pk.isdigit() and len(pk) < 12 for pk in picked):
            raise ValidationError("not a card id")
        return [int(pk) for pk in picked]


class MediaForm(forms.Form):
    """An image uploaded in the card editor (its bytes are checked by the media service)."""

    image = forms.FileField(required=False, allow_empty_file=True)
