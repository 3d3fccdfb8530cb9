"""Secrets come only from the environment, and production runs with the CSP and the lock-out."""

import ast
import json
import re
from pathlib import Path

from tests.test_settings import PROD, manage

SETTINGS = Path(__file__).resolve().parents[2] / "config" / "settings.py"
SECRETISH = re.compile(r"(SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIALS?|_KEY)$", re.I)


def test_settings_hold_no_literal_secret_but_the_dev_key_production_refuses():
    tree = ast.parse(SETTINGS.read_text())
    literals = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and SECRETISH.search(target.id):
                    literals += [
                        (target.id, c.value)
                        for c in ast.walk(node.value)
                        if isinstance(c, ast.Constant) and isinstance(c.value, str)
                    ]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            # a URL with a password in it (postgres://u:p@h, redis://:p@h)
            assert not re.search(r"://[^/\s:@]*:[^/\s@]+@", node.value), node.value
    # SECRET_KEY = os.environ.get("SECRET_KEY", DEV_SECRET_KEY): the name of the variable only;
    # EMAIL_HOST_PASSWORD likewise, with no password ("") when SMTP needs none
    assert literals == [
        ("DEV_SECRET_KEY", "dev-only-insecure-key-do-not-use-in-production"),
        ("SECRET_KEY", "SECRET_KEY"),
        ("EMAIL_HOST_PASSWORD", "EMAIL_HOST_PASSWORD"),
        ("EMAIL_HOST_PASSWORD", ""),
    ], literals


def test_production_settings_carry_the_policy_the_lock_out_and_a_shared_cache():
    code = (
        "import json; from django.conf import settings as s; print(json.dumps({"
        "'csp': s.CONTENT_SECURITY_POLICY, 'ro': getattr(s, 'CONTENT_SECURITY_POLICY_REPORT_ONLY',"
        " None), 'mw': s.MIDDLEWARE, 'backends': s.AUTHENTICATION_BACKENDS,"
        " 'limit': s.AXES_FAILURE_LIMIT, 'cooloff': s.AXES_COOLOFF_TIME.total_seconds(),"
        " 'cache': s.CACHES['default']['BACKEND'], 'debug': s.DEBUG,"
        " 'throttles': s.REST_FRAMEWORK['DEFAULT_THROTTLE_CLASSES']}))"
    )
    result = manage("shell", "-c", code, **PROD)
    assert result.returncode == 0, result.stderr
    prod = json.loads(result.stdout.strip().splitlines()[-1])
    assert prod["debug"] is False and prod["ro"] is None
    directives = prod["csp"]["DIRECTIVES"]
    assert directives["script-src"] == ["'self'"] and directives["style-src"] == ["'self'"]
    assert "csp.middleware.CSPMiddleware" in prod["mw"]
    assert prod["mw"][-1] == "axes.middleware.AxesMiddleware"
    assert prod["backends"][0] == "axes.backends.AxesStandaloneBackend"
    assert prod["limit"] == 5 and prod["cooloff"] == 15 * 60
    assert "LocMem" not in prod["cache"]
    assert len(prod["throttles"]) == 3


def test_a_cache_url_that_is_not_redis_is_refused():
    result = manage("check", **(PROD | {"CACHE_URL": "memcached://127.0.0.1:11211"}))
    assert result.returncode != 0
    assert "CACHE_URL must be redis://" in result.stderr
