"""Code exercises under load (issue 25, "Speed and load"). Run by hand, not in CI:

    .venv/bin/python bench/exercises_bench.py [--learners 20] [--rounds 20]

Measures, side by side in one run, on a fresh PostgreSQL database with Redis as the broker:
1. the sandbox's start on its own (bwrap + Python to the harness's first line; and a whole run
   of an empty solution, with and without numpy), in this process;
2. Submit to result for one learner at a time: POST /api/exercises/gae-advantages/submissions/
   to the GET that returns the result, through gunicorn (2 sync workers) and a real Celery
   exercises worker (--concurrency, 2 by default), polling every 20 ms (the page polls every
   500 ms);
3. `--learners` learners submitting at once, each polling every 500 ms as the page does: every
   one gets its result, none lost, none run twice (each claimed once, graded once);
4. the review loop (GET /api/study/queue/ then POST /api/reviews/) idle, and while (3) runs.

PostgreSQL: BENCH_PG_URL (default raydeck_exercises on 127.0.0.1, which the bench drops and
creates); Redis: BENCH_BROKER_URL and BENCH_CACHE_URL (default databases 4 and 5).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import create_database, django_setup  # noqa: E402

OUT = ROOT / "var" / "bench"
PG_URL = os.environ.get(
    "BENCH_PG_URL", "postgres://raydeck:raydeck@127.0.0.1:5432/raydeck_exercises"
)
PORT = int(os.environ.get("BENCH_PORT", "18925"))
BASE = f"http://127.0.0.1:{PORT}"
ENV = {
    "DATABASE_URL": PG_URL,
    "CELERY_BROKER_URL": os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/4"),
    "CACHE_URL": os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6379/5"),
    "DEBUG": "false",
    "SECRET_KEY": "bench-only-" + "x" * 60,
    "ALLOWED_HOSTS": "127.0.0.1,localhost",
    "SECURE_SSL_REDIRECT": "false",
    "SESSION_COOKIE_SECURE": "false",
    "CSRF_COOKIE_SECURE": "false",
    "SECURE_HSTS_SECONDS": "0",
    "DJANGO_SETTINGS_MODULE": "bench.study_settings",
    "DB_CONN_MAX_AGE": "600",
    "THROTTLE_USER": "100000/min",
    "THROTTLE_WRITE": "100000/min",
}
EXERCISE = "gae-advantages"


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def quantiles(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return (f"median {1000 * statistics.median(values):.0f} ms, p95 {1000 * p95:.0f} ms, "
            f"max {1000 * values[-1]:.0f} ms (n={len(values)})")  # fmt: skip


def prepare(learners: int) -> dict[str, str]:
    create_database(PG_URL)
    django_setup(ENV)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    from apps.accounts.models import profile_for

    call_command("migrate", verbosity=0)
    call_command("seed", verbosity=0)
    tokens = {}
    for i in range(learners + 1):
        user = get_user_model().objects.create_user(username=f"bench{i:02d}", password="x" * 12)
        profile = profile_for(user)
        profile.new_cards_per_day = 999
        profile.save()
        tokens[user.username] = Token.objects.create(user=user).key
    return tokens


def start(cmd: list[str], log_name: str) -> subprocess.Popen:
    OUT.mkdir(parents=True, exist_ok=True)
    log = open(OUT / log_name, "w")  # noqa: SIM115 - lives as long as the process
    env = {**os.environ, **ENV}
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip


def stop(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


def wait_for_worker(timeout: float = 60) -> None:
    from apps.exercises.selectors import sandbox_status

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = sandbox_status()
        if status.ready:
            return
        time.sleep(0.5)
    raise SystemExit(f"the exercises worker did not report a sandbox: {status.message}")


def session(token: str) -> requests.Session:
    s = requests.Session()
    s.headers["Authorization"] = f"Token {token}"
    return s


def submit_and_wait(s: requests.Session, code: str, poll_s: float = 0.02) -> tuple[float, dict]:
    started = time.perf_counter()
    r = s.post(f"{BASE}/api/exercises/{EXERCISE}/submissions/", json={"code": code})
    r.raise_for_status()
    pk = r.json()["id"]
    while True:
        body = s.get(f"{BASE}/api/exercise-submissions/{pk}/").json()
        if body["status"] not in ("queued", "running"):
            return time.perf_counter() - started, body
        time.sleep(poll_s)


def review_loop(s: requests.Session, stop_at, out: list[float]) -> None:
    while not stop_at():
        started = time.perf_counter()
        queue = s.get(f"{BASE}/api/study/queue/?deck=distributed-rl-on-ray&limit=1").json()
        if not queue["cards"]:
            break
        card = queue["cards"][0]["id"]
        s.post(f"{BASE}/api/reviews/", json={"card": card, "grade": 4}).raise_for_status()
        out.append(time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=2, help="the exercises worker's")
    args = parser.parse_args()
    print(f"load before: {load()} (1, 5, 15 min) on {os.cpu_count()} cores; exercises worker "
          f"concurrency {args.concurrency}")  # fmt: skip
    tokens = prepare(args.learners)
    import yaml

    from apps.exercises import grading, sandbox
    from apps.exercises.models import Submission
    from apps.practice.models import PracticeLog

    shipped = yaml.safe_load((ROOT / "fixtures/exercises/distributed-rl-on-ray.yaml").read_text())
    reference = next(e for e in shipped["exercises"] if e["slug"] == EXERCISE)["reference"]

    # 1. The sandbox on its own.
    empty = [grading.Suite("t", "def test_nothing():\n    pass\n")]
    with_numpy = [grading.Suite("t", "import numpy\n\ndef test_nothing():\n    pass\n")]
    limits = grading.Limits()
    sandbox.run("", empty, limits)  # the runtime is read once per process
    starts, bare, numpy_runs = [], [], []
    for _ in range(args.rounds):
        out = sandbox.run("", empty, limits)
        starts.append(out.startup_ms / 1000)
        bare.append(out.time_ms / 1000)
        numpy_runs.append(sandbox.run("", with_numpy, limits).time_ms / 1000)
    print(f"sandbox start (bwrap to the harness's first line): {quantiles(starts)}")
    print(f"a whole run, empty solution:                     {quantiles(bare)}")
    print(f"a whole run, empty solution importing numpy:     {quantiles(numpy_runs)}")

    gunicorn = [str(ROOT / ".venv/bin/gunicorn"), "config.wsgi", "--workers", "2", "--bind",
                f"127.0.0.1:{PORT}"]  # fmt: skip
    web = start(gunicorn, "exercises_web.log")
    celery = [str(ROOT / ".venv/bin/celery"), "-A", "config", "worker", "--queues=exercises",
              f"--concurrency={args.concurrency}", "--hostname=bench-exercises@%h",
              "--without-gossip", "--without-mingle", "--loglevel=WARNING"]  # fmt: skip
    worker = start(celery, "exercises_worker.log")
    try:
        for _ in range(100):
            try:
                requests.get(f"{BASE}/healthz", timeout=10)
                break
            except requests.RequestException:
                time.sleep(0.5)
        wait_for_worker()
        names = sorted(tokens)
        reviewer, learners = session(tokens[names[0]]), [session(tokens[n]) for n in names[1:]]

        # 4a. The review loop, idle.
        idle: list[float] = []
        review_loop(reviewer, lambda: len(idle) >= 60, idle)
        print(f"review loop, idle:                               {quantiles(idle)}")

        # 2. One learner at a time.
        one = [submit_and_wait(learners[0], reference) for _ in range(args.rounds)]
        assert all(body["status"] == "passed" for _, body in one), one[-1][1]
        print(f"Submit to result, one learner at a time:         {quantiles([t for t, _ in one])}")
        print(f"  the sandbox's own time in those runs:          "
              f"{quantiles([b['time_ms'] / 1000 for _, b in one])}")  # fmt: skip

        # 3 + 4b. Everyone at once, the review loop beside them.
        before = Submission.objects.count()
        results: list[tuple[float, dict]] = []
        busy: list[float] = []
        done = threading.Event()
        loop = threading.Thread(target=review_loop, args=(reviewer, done.is_set, busy))
        loop.start()
        print(f"load before the burst: {load()}")
        threads = [
            # Each polls as the page does, every 500 ms.
            threading.Thread(target=lambda s=s: results.append(submit_and_wait(s, reference, 0.5)))
            for s in learners
        ]
        burst = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        wall = time.perf_counter() - burst
        done.set()
        loop.join(60)
        print(f"load after the burst: {load()}")
        new = Submission.objects.filter(pk__gt=0).order_by("-id")[: len(learners)]
        attempts = sorted(s.attempts for s in new)
        statuses = sorted({body["status"] for _, body in results})
        graded = PracticeLog.objects.filter(key=EXERCISE).count()
        print(f"{len(learners)} learners at once: {len(results)} results ({statuses}), "
              f"{Submission.objects.count() - before} submissions, claims per submission "
              f"{attempts[0]}..{attempts[-1]}, {graded - args.rounds} graded; all in "
              f"{wall:.1f} s")  # fmt: skip
        print(f"  Submit to result under the burst:              "
              f"{quantiles([t for t, _ in results])}")  # fmt: skip
        print(f"review loop, during the burst:                   {quantiles(busy)}")
        ratio = statistics.median(busy) / statistics.median(idle)
        print(f"  review loop median, burst / idle:              {ratio:.2f}x")
    finally:
        stop(web)
        stop(worker)
    print(f"load after: {load()}")


if __name__ == "__main__":
    main()
