"""House rules a reviewer would otherwise have to remember, checked over the source of apps/.

One refusal vocabulary (README, config/errors.py): code refuses with a config.errors.ServiceError
subclass, which the API and the pages map once. Django's ValidationError and PermissionDenied
are raised only where Django itself catches them: a form or a serializer module, and Django's
validation hooks anywhere (a model's or a form's `clean*`, a field validator `validate*`), whose
ValidationError becomes a field's message.
"""

import ast
from pathlib import Path

import pytest

APPS = Path(__file__).resolve().parent.parent / "apps"
DJANGO_REFUSALS = {"ValidationError", "PermissionDenied"}
# The modules where Django's own refusals belong: forms, and DRF's serializers.
FORM_MODULES = {"forms.py", "serializers.py"}
HOOK_PREFIXES = ("clean", "validate")


def _django_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names bound to Django's refusals in a module, and the names of Django modules
    that carry them as attributes (`forms.ValidationError`, `exceptions.PermissionDenied`)."""
    names, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django"):
            for alias in node.names:
                bound = alias.asname or alias.name
                if alias.name in DJANGO_REFUSALS:
                    names.add(bound)
                elif alias.name in ("forms", "exceptions"):
                    modules.add(bound)  # from django import forms / django.core import exceptions
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("django") and alias.asname:
                    modules.add(alias.asname)
    return names, modules


def _refused_name(exc: ast.expr | None) -> ast.expr | None:
    return exc.func if isinstance(exc, ast.Call) else exc


def _is_django_refusal(target: ast.expr | None, names: set[str], modules: set[str]) -> bool:
    if isinstance(target, ast.Name):
        return target.id in names
    return (
        isinstance(target, ast.Attribute)
        and target.attr in DJANGO_REFUSALS
        and isinstance(target.value, ast.Name)
        and target.value.id in modules
    )


def django_raises(source: str, filename: str = "<apps>") -> list[int]:
    """The lines of `source` that raise Django's ValidationError or PermissionDenied outside
    Django's validation hooks."""
    tree = ast.parse(source, filename)
    names, modules = _django_names(tree)
    found = []

    def visit(node: ast.AST, in_hook: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_hook = in_hook or node.name.startswith(HOOK_PREFIXES)
        if (
            isinstance(node, ast.Raise)
            and not in_hook
            and _is_django_refusal(_refused_name(node.exc), names, modules)
        ):
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, in_hook)

    visit(tree, False)
    return found


def _is_form_module(path: Path) -> bool:
    return path.name in FORM_MODULES or "forms" in path.relative_to(APPS).parts[:-1]


def test_no_django_refusal_is_raised_outside_forms_and_serializers():
    offenders = []
    for path in sorted(APPS.rglob("*.py")):
        if "migrations" in path.parts or _is_form_module(path):
            continue
        for line in django_raises(path.read_text(), str(path)):
            offenders.append(f"{path.relative_to(APPS.parent)}:{line}")
    assert not offenders, (
        "raise config.errors.ServiceError (Forbidden for 403, field= for the input at fault) "
        "instead of Django's ValidationError/PermissionDenied at:\n" + "\n".join(offenders)
    )


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("from django.core.exceptions import ValidationError\nraise ValidationError('x')\n", [2]),
        ("from django.core.exceptions import PermissionDenied as No\nraise No\n", [2]),
        ("from django import forms\ndef f():\n    raise forms.ValidationError('x')\n", [3]),
        ("from django.core import exceptions\nraise exceptions.PermissionDenied()\n", [2]),
        # DRF's own exceptions are the API's, not Django's
        ("from rest_framework import exceptions\nraise exceptions.ValidationError('x')\n", []),
        ("from rest_framework.exceptions import ValidationError\nraise ValidationError('x')\n", []),
        # Django's validation hooks: Model.clean, a form's clean_<field>, a field validator
        (
            "from django.core.exceptions import ValidationError\n"
            "class M:\n    def clean(self):\n        raise ValidationError('x')\n",
            [],
        ),
        (
            "from django.core.exceptions import ValidationError\n"
            "def validate_zone(v):\n    raise ValidationError('x')\n",
            [],
        ),
        ("from config.errors import Forbidden\nraise Forbidden('Not yours.')\n", []),
    ],
)
def test_the_rule_finds_djangos_refusals_and_only_them(source, lines):
    assert django_raises(source) == lines
