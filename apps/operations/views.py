from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, StreamingHttpResponse

from apps.operations.export import export_response


@login_required
def export(request: HttpRequest, fmt: str) -> StreamingHttpResponse:
    """ "Your data": everything of the signed-in user's, as JSON or as a zip of CSV files."""
    return export_response(request.user, fmt)
