from django import forms

from apps.exercises.models import Submission


class SubmissionForm(forms.Form):
    """A Run or Submit from the exercise page (the service checks the code itself)."""

    code = forms.CharField(required=False, strip=False, widget=forms.Textarea)
    mode = forms.ChoiceField(choices=Submission.Mode.choices, initial=Submission.Mode.SUBMIT)
    client_id = forms.UUIDField(required=False)
