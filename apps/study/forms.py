from django import forms

from apps.study.services import MORE_NEW_CARDS_MAX


class MoreNewCardsForm(forms.Form):
    """ "Learn N more new cards today" on the review page's end-of-session summary."""

    count = forms.IntegerField(min_value=1, max_value=MORE_NEW_CARDS_MAX)
    deck = forms.SlugField(required=False)
