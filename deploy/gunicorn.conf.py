"""gunicorn for production: refuses to serve with DEBUG on."""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1))
timeout = 30
accesslog = "-"


def on_starting(server):
    if os.environ.get("DEBUG", "false").lower() in {"1", "true", "yes", "on"}:
        raise SystemExit("Refusing to serve with DEBUG on: set DEBUG=false in production.")
