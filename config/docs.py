"""The API docs page (Swagger UI) under the site's Content Security Policy."""

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.utils.decorators import method_decorator
from drf_spectacular.views import SpectacularSwaggerSplitView


@method_decorator(
    # Swagger UI's own stylesheet is a file, but its page carries a small <style> block and the
    # React UI sets style attributes; scripts stay 'self' only (the init script is a separate
    # request in the split view).
    csp_update({"style-src": [UNSAFE_INLINE]}),
    name="dispatch",
)
class ApiDocsView(SpectacularSwaggerSplitView):
    """Swagger UI with its init script as a separate file; styles relaxed for this page only."""
