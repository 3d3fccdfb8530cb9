"""What every author form shares: text taken as typed, the refusals a form shows (its own and
a service's), and the move buttons' direction."""

from django import forms
from django.core.exceptions import ValidationError

from config.errors import ServiceError


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


class MoveForm(AuthorForm):
    direction = Text()  # the service moves for "up" and "down" and ignores anything else


def direction_posted(data) -> str:
    """The direction a move button posted (any text: the move services ignore all but up/down)."""
    form = MoveForm(data)
    form.is_valid()
    return form.cleaned_data["direction"]
