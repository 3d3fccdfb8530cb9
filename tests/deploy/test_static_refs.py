"""Every `{% static %}` a template names is a file the static finders find: with the production
storage (ManifestStaticFilesStorage) a missing one is a 500 on every page that names it, while
DEBUG only logs a 404."""

import re
from pathlib import Path

from django.contrib.staticfiles import finders

ROOT = Path(__file__).resolve().parents[2]
STATIC = re.compile(r"""{%\s*static\s+['"]([^'"]+)['"]\s*%}""")


def test_every_static_file_a_template_names_exists():
    named = {
        (path.relative_to(ROOT), name)
        for folder in ("apps", "templates")
        for path in (ROOT / folder).rglob("*.html")
        for name in STATIC.findall(path.read_text(encoding="utf-8"))
    }
    assert len(named) > 20  # the pattern still finds them
    missing = sorted(f"{path}: {name}" for path, name in named if not finders.find(name))
    assert missing == []
