"""What a sandbox run is asked to do and what it came to: its limits, the test suites, and the
reading of the harness's JSON lines into an Outcome. Pure Python, no Django, and nothing here
runs code: apps/exercises/sandbox.py runs it, this reads the result (and the worker, the content
checks and the tests read it too)."""

from __future__ import annotations

import ast
import json
import signal
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Limits:
    cpu_s: int = 5
    wall_s: float = 10.0
    memory_mb: int = 512
    processes: int = 32
    file_mb: int = 16
    open_files: int = 64
    tmpfs_mb: int = 64
    output_bytes: int = 1 << 20  # stdout + stderr past this: the run is stopped
    shown_bytes: int = 4096  # what is kept of each stream
    nice: int = 10  # learners' code runs below the web and the workers' own priority
    # What the run may hold. "numpy": Python and numpy, one process (threads only), so the
    # address-space limit `memory_mb` is the run's whole memory. "ray": the worker's packages
    # (Ray, RLlib, torch), processes of its own, a /dev/shm of `shm_mb` for Ray's object store,
    # and `run_memory_mb` over all its processes together (watched by the worker).
    runtime: str = "numpy"
    run_memory_mb: int = 0
    shm_mb: int = 0

    @property
    def spawns(self) -> bool:
        return self.runtime == "ray"


@dataclass(frozen=True)
class Suite:
    name: str  # "examples" or "hidden"
    source: str
    visible: bool = False  # a visible suite's failing lines may be quoted in messages


@dataclass
class TestResult:
    name: str
    suite: str
    passed: bool
    message: str = ""
    ms: float | None = None


@dataclass
class Outcome:
    """What one run came to. `status` is "passed" (every test passed), "failed" (the code ran
    and something failed or it hit a limit) or "error" (the sandbox itself did not run it: the
    learner is not to blame and nothing is graded)."""

    status: str
    tests: list[TestResult] = field(default_factory=list)
    problem: str = ""  # one sentence for the run as a whole (a limit, a crash, a syntax error)
    syntax_error: dict | None = None
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    time_ms: int = 0
    cpu_ms: int | None = None  # the harness's own count, when it finished
    startup_ms: int | None = None  # from spawning bwrap to the harness's first line
    memory_peak_mb: int | None = None  # a run of many processes: their peak together, as seen

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def as_json(self) -> dict:
        return asdict(self)


def test_names(source: str) -> list[str]:
    """The top-level test functions a suite defines, in order (what the result must list)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    ]


SIGNALS: dict[int, str] = {
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGILL: "an illegal instruction",
    signal.SIGFPE: "a floating-point exception",
    signal.SIGABRT: "an abort",
    signal.SIGKILL: "a kill",
    signal.SIGXCPU: "the CPU time limit",
    signal.SIGXFSZ: "the file size limit",
}


def _text(data: bytes, total: int) -> str:
    text = data.decode("utf-8", errors="replace")
    if total > len(data):
        text += f"\n… [{total - len(data):,} more bytes not shown]"
    return text


def _signal_of(returncode: int) -> int | None:
    """bwrap reports a child killed by signal N as exit status 128 + N; a kill of bwrap itself
    shows as -N."""
    if returncode < 0:
        return -returncode
    if returncode > 128:
        return returncode - 128
    return None


def outcome_parse(
    events: bytes,
    *,
    suites: list[Suite],
    limits: Limits,
    returncode: int,
    stopped: str = "",
    stdout: bytes = b"",
    stderr: bytes = b"",
    stdout_bytes: int = 0,
    stderr_bytes: int = 0,
    time_ms: int = 0,
    startup_ms: int | None = None,
    memory_peak_mb: int | None = None,
) -> Outcome:
    """The run's Outcome from the harness's JSON lines and how the process ended. Every test the
    suites define is listed: one the harness never reported failed, with the reason the run
    stopped. A line that is not JSON, or a test nobody defined, is ignored (the learner's code
    shares the process and may write anything)."""
    parsed, broken_tail = [], False
    for line in events.split(b"\n"):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            broken_tail = True
            continue
        if isinstance(item, dict):
            parsed.append(item)
    started = any(e.get("event") == "start" for e in parsed)
    out = Outcome(
        status="failed",
        stdout=_text(stdout, stdout_bytes),
        stderr=_text(stderr, stderr_bytes),
        stdout_bytes=stdout_bytes,
        stderr_bytes=stderr_bytes,
        time_ms=time_ms,
        startup_ms=startup_ms,
        memory_peak_mb=memory_peak_mb,
    )
    if not started and not stopped:
        out.status = "error"
        lines = stderr.decode("utf-8", errors="replace").strip().splitlines()
        out.problem = "The sandbox did not start" + (f": {lines[-1][:300]}" if lines else ".")
        out.stderr = ""
        return out
    expected = [(s.name, n) for s in suites for n in test_names(s.source)]
    results: dict[tuple[str, str], TestResult] = {}
    running = None
    done = False
    for event in parsed:
        kind = event.get("event")
        key = (str(event.get("suite")), str(event.get("name")))
        if kind == "test_start" and key in dict.fromkeys(expected):
            running = key
        elif kind == "test" and key in dict.fromkeys(expected) and key not in results:
            results[key] = TestResult(
                name=key[1], suite=key[0], passed=event.get("passed") is True,
                message=str(event.get("message") or "")[:2000],
                ms=event.get("ms") if isinstance(event.get("ms"), int | float) else None,
            )  # fmt: skip
            running = None
        elif kind == "syntax_error":
            out.syntax_error = {
                "line": event.get("line") if isinstance(event.get("line"), int) else None,
                "offset": event.get("offset") if isinstance(event.get("offset"), int) else None,
                "message": str(event.get("message") or "invalid syntax")[:300],
                "text": str(event.get("text") or "")[:300],
            }
            where = f" on line {out.syntax_error['line']}" if out.syntax_error["line"] else ""
            out.problem = f"SyntaxError{where}: {out.syntax_error['message']}"
        elif kind == "load_error" and not out.problem:
            out.problem = f"Your code failed as it loaded: {str(event.get('message'))[:2000]}"
        elif kind == "suite_error" and not out.problem:
            out.problem = f"The {event.get('suite')} tests could not load: {event.get('message')}"
        elif kind == "limit" and event.get("what") == "cpu":
            stopped = stopped or "cpu"
        elif kind == "done":
            done = True
            if isinstance(event.get("cpu_ms"), int):
                out.cpu_ms = event["cpu_ms"]
    sig = _signal_of(returncode)
    if not out.problem:
        if stopped == "wall":
            out.problem = (
                f"Stopped after {limits.wall_s:g} s of wall-clock time (the limit): an endless "
                "loop, or waiting for something that never comes?"
            )
        elif stopped == "memory":
            out.problem = (
                f"Stopped: the run's processes together held more than {limits.run_memory_mb:,} "
                "MB (the memory limit of a run)."
            )
        elif stopped == "output":
            out.problem = (
                f"Stopped: the code printed more than {limits.output_bytes // 1024:,} KiB "
                "(the output limit)."
            )
        elif stopped == "cpu" or sig == signal.SIGXCPU:
            out.problem = f"Stopped: the code used {limits.cpu_s} s of CPU time (the limit)."
        elif sig == signal.SIGKILL:
            out.problem = (
                f"Stopped: killed at the CPU time limit ({limits.cpu_s} s), inside a library call."
            )
        elif sig is not None:
            name = SIGNALS.get(sig, f"signal {sig}")
            out.problem = f"The code crashed with {name} (signal {sig})."
        elif not done:
            why = " (its output was cut)" if broken_tail else ""
            out.problem = (
                f"The program ended before the tests finished (exit status {returncode}){why}: "
                "did the code call exit, or run out of memory?"
            )
    reason = out.problem or "not run"
    for key in expected:
        if key not in results:
            message = f"not run: {reason}"
            if running == key and stopped:
                message = f"stopped in this test: {reason}"
            results[key] = TestResult(name=key[1], suite=key[0], passed=False, message=message)
    out.tests = [results[key] for key in expected]
    if done and not out.problem and out.tests and all(t.passed for t in out.tests):
        out.status = "passed"
    return out
