"""Pieces every PostgreSQL bench shares: a fresh database, Django set up with the bench's
environment, and timed steps."""

import os
import time


def create_database(url: str) -> None:
    """Drop and create the database `url` names (the bench owns it)."""
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def django_setup(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def step(label: str, started: float) -> float:
    now = time.perf_counter()
    print(f"  {label}: {now - started:.1f}s", flush=True)
    return now
