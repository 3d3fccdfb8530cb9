"""Exercise submissions through `make run`'s stack on each embedded broker, side by side in one
run. Run by hand, not in CI:

    .venv/bin/python bench/broker_bench.py [--submissions 1000] [--learners 20]

For each broker, the default (kombu's SQLAlchemy transport on a SQLite file, config/broker.py)
and kombu's filesystem transport (the default before it), on a copy of one seeded SQLite
database: deploy/supervise.py runs the Procfile's web (runserver), worker and exercises
processes as `make run` does (the demos worker and its Ray are left out: no submission reaches
them), and `--learners` learners send `--submissions` Runs between them through the API, each
sending its next once the last has its result and a pause of 0 to --think s (trivially short
code: the sandbox starts, runs the examples, and they fail). The pause keeps the queue mostly
empty when a submission arrives, so a worker often takes a message the moment it is written:
the filesystem transport's race. Without it (--think 0) the queue stays full and a worker only
ever takes old, whole messages. It counts:
- worker deaths: the exercises worker exiting (deploy/supervise.py starts it again);
- lost: submissions with no result when the bench ends (each learner waits up to --wait s for
  one, past the sweep that sends a lost job again after EXERCISES_RESEND_S);
- late: results that came only after the sweep sent the job again (over --late s);
- throughput (results a second over the whole burst) and Submit-to-result times.

Everything lives under var/bench/broker/; nothing else on the machine is touched.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "var" / "bench" / "broker"
PORT = int(os.environ.get("BENCH_PORT", "18931"))
BASE = f"http://127.0.0.1:{PORT}"
CODE = "def solution():\n    return 1\n"
ARMS = {"sqlite (default)": None, "filesystem (before)": "filesystem://"}


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def base_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    return env | {
        "DEBUG": "true",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CELERY_DATA_DIR": str(folder / "celery"),
        "CACHE_URL": "",
        "CACHE_DIR": str(folder / "cache"),
        "THROTTLE_USER": "100000/min",
        "THROTTLE_WRITE": "100000/min",
        "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
    }


def prepare(learners: int) -> dict[str, str]:
    """One seeded database with `learners` learners and their API tokens, copied per arm."""
    template = OUT / "template"
    shutil.rmtree(OUT, ignore_errors=True)
    template.mkdir(parents=True)
    env = base_env(template)
    python = str(ROOT / ".venv" / "bin" / "python")
    run([python, "manage.py", "migrate", "--noinput", "-v", "0"], env)
    run([python, "manage.py", "seed", "-v", "0"], env)
    script = (
        "from django.contrib.auth import get_user_model\n"
        "from rest_framework.authtoken.models import Token\n"
        f"for i in range({learners}):\n"
        "    u = get_user_model().objects.create_user(username=f'bench{i:02d}', password='x'*12)\n"
        "    print(u.username, Token.objects.create(user=u).key)\n"
    )
    lines = run([python, "manage.py", "shell", "-c", script], env).splitlines()
    return dict(line.split() for line in lines if line.startswith("bench"))


class Stack:
    """deploy/supervise.py running web, worker and exercises, its output in a log file."""

    def __init__(self, folder: Path, broker: str | None):
        shutil.copytree(OUT / "template", folder)
        env = base_env(folder)
        if broker:
            env["CELERY_BROKER_URL"] = broker
        self.log_path = folder / "supervise.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115 - lives as long as the process
        self.proc = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "python"), "deploy/supervise.py", "-f", "Procfile",
             "-p", str(PORT), "web", "worker", "exercises"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(r"exercises@\S+ ready", self.text()):
                try:
                    if requests.get(f"{BASE}/healthz", timeout=5).ok:
                        return
                except requests.RequestException:
                    pass
            time.sleep(0.5)
        raise SystemExit(f"the stack did not start; see {self.log_path}")

    def stop(self) -> tuple[bool, float]:
        """Ctrl-C; (every process stopped with rc=0, seconds it took)."""
        started = time.monotonic()
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            code = self.proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            code = self.proc.wait()
        self.log.close()
        return code == 0, time.monotonic() - started


def learner(token: str, slugs: list[str], take, results: list, wait_s: float,
            think_s: float = 0.0) -> None:  # fmt: skip
    s = requests.Session()
    s.headers["Authorization"] = f"Token {token}"
    rng = random.Random(token)
    while (index := take()) is not None:
        time.sleep(rng.uniform(0, think_s))
        slug = slugs[index % len(slugs)]
        started = time.monotonic()
        try:
            r = s.post(f"{BASE}/api/exercises/{slug}/submissions/",
                       json={"code": CODE, "mode": "run"}, timeout=60)  # fmt: skip
        except requests.RequestException as exc:
            results.append(("refused", type(exc).__name__, 0.0))
            continue
        if r.status_code not in (200, 201, 202):
            results.append(("refused", str(r.status_code), 0.0))
            continue
        pk, status = r.json()["id"], "queued"
        while time.monotonic() - started < wait_s:
            time.sleep(0.25)
            try:
                status = s.get(f"{BASE}/api/exercise-submissions/{pk}/", timeout=60).json()[
                    "status"
                ]
            except (requests.RequestException, ValueError):
                continue
            if status not in ("queued", "running"):
                break
        results.append((status, pk, time.monotonic() - started))


def quantiles(values: list[float]) -> str:
    if not values:
        return "none"
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return (f"median {statistics.median(values):.2f} s, p95 {p95:.2f} s, "
            f"max {values[-1]:.2f} s")  # fmt: skip


def arm(name: str, broker: str | None, tokens: dict[str, str], args) -> dict:
    folder = OUT / re.sub(r"\W+", "-", name).strip("-")
    stack = Stack(folder, broker)
    try:
        stack.wait_ready()
        auth = {"Authorization": f"Token {next(iter(tokens.values()))}"}
        listed = requests.get(f"{BASE}/api/exercises/", headers=auth, timeout=30).json()
        slugs = [e["slug"] for e in listed]
        warm: list = []  # a few first runs, not counted: each process's first run pays its imports
        for token in list(tokens.values())[:4]:
            two = iter([0, 1])
            learner(token, slugs, lambda two=two: next(two, None), warm, args.wait)
        counter, lock, results = iter(range(args.submissions)), threading.Lock(), []

        def take():
            with lock:
                return next(counter, None)

        print(f"{name}: load before {load()}", flush=True)
        started = time.monotonic()
        threads = [
            threading.Thread(target=learner, args=(t, slugs, take, results, args.wait, args.think))
            for t in tokens.values()
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - started
        print(f"{name}: load after {load()}", flush=True)
        time.sleep(1)
    finally:
        clean, stop_s = stack.stop()
    log = stack.text()
    db = sqlite3.connect(folder / "db.sqlite3")
    unfinished = db.execute(
        "SELECT count(*) FROM exercises_submission WHERE status IN ('queued', 'running')"
    ).fetchone()[0]
    done = [r for r in results if r[0] not in ("queued", "running", "refused")]
    return {
        "submitted": sum(1 for r in results if r[0] != "refused"),
        "refused": [r for r in results if r[0] == "refused"],
        "results": len(done),
        "lost": unfinished,
        "late": sum(1 for r in done if r[2] > args.late),
        "deaths": len(re.findall(r"exercises exited \(rc=", log)),
        "unrecoverable": len(re.findall(r"Unrecoverable error", log)),
        "resent": sum(int(n) for n in re.findall(r"exercises sweep: \{'resent': (\d+)", log)),
        "wall": wall,
        "throughput": len(done) / wall,
        "latency": quantiles([r[2] for r in done]),
        "stop": f"{'clean' if clean else 'NOT clean'} in {stop_s:.1f} s",
        "error_lines": len(re.findall(r"ERROR", log)),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--wait", type=float, default=240.0, help="a learner's wait for a result")
    parser.add_argument("--late", type=float, default=30.0, help="a result later than this is late")
    parser.add_argument(
        "--think", type=float, default=15.0,
        help="a learner waits 0 to this many seconds before each Submit, so the queue is mostly "
        "empty when one arrives (the filesystem race needs that)",
    )  # fmt: skip
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {load()}, "
          f"{os.cpu_count()} cores", flush=True)  # fmt: skip
    tokens = prepare(args.learners)
    figures = {name: arm(name, broker, tokens, args) for name, broker in ARMS.items()}
    rows = ["submitted", "results", "lost", "late", "deaths", "unrecoverable", "resent",
            "throughput", "latency", "wall", "stop", "error_lines"]  # fmt: skip
    print("\n| | " + " | ".join(figures) + " |\n|---|" + "---|" * len(figures))
    for row in rows:
        cells = []
        for f in figures.values():
            value = f[row]
            cells.append(f"{value:.2f}" if isinstance(value, float) else str(value))
        print(f"| {row} | " + " | ".join(cells) + " |")
    for name, f in figures.items():
        if f["refused"]:
            print(f"{name}: {len(f['refused'])} refused, e.g. {f['refused'][:3]}")
    print(f"load at the end: {load()}")


if __name__ == "__main__":
    main()
