"""The test harness that runs INSIDE the sandbox (apps/exercises/sandbox.py starts it as
`python -I -S -B /sandbox/harness.py` under bubblewrap). Standard library only: the sandbox holds
Python and numpy, nothing of the app.

It reads the job (the learner's code and the test suites, JSON) from stdin, drops to the run's
own uid when it starts as root (a root worker), sets the rlimits, then loads the code as the
module `solution` and runs every top-level `test_*` function of each suite in order. Each
outcome goes out at once as one JSON line on fd 3, which the learner's prints (fd 1 and 2) never
mix with, so a run killed half-way still reports the tests it finished. Tests import helpers
with `from checks import assert_close, assert_equal`.

What this does not do: keep a learner from reading the tests it is run against (the tests run in
its process; a test's inputs are always visible to the code under test). The server never sends
the hidden tests' source; the harness keeps it off the disk and out of linecache.
"""

import contextlib
import json
import linecache
import math
import os
import resource
import signal
import sys
import time
import traceback
import types

RESULT_FD = 3  # the job names the descriptor the worker passed (job["result_fd"])
MESSAGE_MAX = 2000
SOLUTION_FILE = "solution.py"


def _emit(event: dict) -> None:
    data = (json.dumps(event, ensure_ascii=False, default=str) + "\n").encode()
    os.write(RESULT_FD, data)


# --- checks: what tests import to compare results with a clear message ------------------------


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


def _flat(value):
    tolist = getattr(value, "tolist", None)
    if tolist is not None:
        value = tolist()
    if isinstance(value, list | tuple):
        out = []
        for item in value:
            sub = _flat(item)
            out.extend(sub if isinstance(sub, list) else [sub])
        return out
    return value


def _digits(a: float, b: float) -> int:
    """Enough significant digits that two different numbers never print alike."""
    for digits in (6, 9, 12, 17):
        if f"{a:.{digits}g}" != f"{b:.{digits}g}":
            return digits
    return 17


def _numbers(values, digits: int = 6) -> str:
    return "[" + ", ".join(f"{float(v):.{digits}g}" for v in values) + "]"


# float32 keeps about 7 significant digits, and a recursion over a rollout loses a few more
# against the largest value it carries: an answer computed in float32 passes the defaults.
RTOL, ATOL = 1e-5, 1e-6


def assert_close(got, want, *, name: str = "result", rtol: float = RTOL, atol: float | None = None):
    """Numbers, lists or arrays equal within tolerance; the message names the first index that
    differs, what came and what was expected, with the digits that tell them apart. Without
    `atol`, an element may also be off by `rtol` of the largest expected magnitude."""
    shape_got = getattr(got, "shape", None)
    shape_want = getattr(want, "shape", None)
    if shape_got is not None and shape_want is not None and tuple(shape_got) != tuple(shape_want):
        raise AssertionError(f"{name} has shape {tuple(shape_got)}, expected {tuple(shape_want)}")
    flat_got, flat_want = _flat(got), _flat(want)
    if not isinstance(flat_want, list):
        flat_want, flat_got = [flat_want], flat_got if isinstance(flat_got, list) else [flat_got]
    if not isinstance(flat_got, list):
        raise AssertionError(f"{name} is {_short(got)}, expected a sequence like {_short(want)}")
    if len(flat_got) != len(flat_want):
        raise AssertionError(
            f"{name} has {len(flat_got)} values, expected {len(flat_want)}: "
            f"got {_short(got)}, expected {_short(want)}"
        )
    try:
        scale = max((abs(float(b)) for b in flat_want), default=0.0)
    except (TypeError, ValueError):
        scale = 0.0
    absolute = atol if atol is not None else max(ATOL, rtol * scale)
    for i, (a, b) in enumerate(zip(flat_got, flat_want, strict=True)):
        try:
            a, b = float(a), float(b)
        except (TypeError, ValueError):
            raise AssertionError(f"{name}[{i}] is {_short(a)}, not a number") from None
        if math.isnan(a) or not math.isclose(a, b, rel_tol=rtol, abs_tol=absolute):
            d = _digits(a, b)
            within = f" (tolerance: relative {rtol:g}, absolute {absolute:.3g})"
            if len(flat_want) == 1:
                raise AssertionError(f"{name} is {a:.{d}g}, expected {b:.{d}g}{within}")
            message = f"{name}[{i}] is {a:.{d}g}, expected {b:.{d}g}"
            if len(flat_want) <= 8:
                got_text, want_text = _numbers(flat_got, d), _numbers(flat_want, d)
                message += f"; got {got_text}, expected {want_text}"
            else:
                message += f" (the first of {len(flat_want)} values to differ)"
            raise AssertionError(message + within)


def assert_equal(got, want, *, name: str = "result"):
    if got != want:
        raise AssertionError(f"{name} is {_short(got)}, expected {_short(want)}")


def start_ray(num_cpus: int = 2):
    """A local Ray for an exercise that declares `runtime: ray`, started once per run: its object
    store fits the run's /dev/shm, and nothing goes to the dashboard or the driver's log."""
    import ray  # only a Ray run's sandbox holds it

    if not ray.is_initialized():
        ray.init(num_cpus=num_cpus, object_store_memory=128 << 20, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)  # fmt: skip
    return ray


def _checks_module() -> types.ModuleType:
    module = types.ModuleType("checks", "Helpers the exercises' tests compare results with.")
    module.__dict__.update(assert_close=assert_close, assert_equal=assert_equal,
                           start_ray=start_ray)  # fmt: skip
    return module


# --- running ----------------------------------------------------------------------------------


def _limits(job: dict) -> None:
    limits = job["limits"]
    os.nice(int(limits.get("nice", 0)))  # below the web's priority on a shared machine
    cpu = int(limits["cpu_s"])
    wanted = [
        (resource.RLIMIT_CPU, (cpu, cpu + 1)),
        (resource.RLIMIT_AS, (limits["memory_mb"] << 20,) * 2),
        (resource.RLIMIT_NPROC, (limits["processes"],) * 2),
        (resource.RLIMIT_FSIZE, (limits["file_mb"] << 20,) * 2),
        (resource.RLIMIT_NOFILE, (limits["open_files"],) * 2),
        (resource.RLIMIT_CORE, (0, 0)),
    ]
    for which, value in wanted:
        resource.setrlimit(which, value)


def _drop_privileges(uid: int | None) -> None:
    """Started as root (by a root worker, without a user namespace): become the run's own uid, so
    the process limit counts this run only and no capability is left."""
    if os.getuid() == 0 and uid:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    os.makedirs("/tmp/work", exist_ok=True)  # /tmp is the run's own tmpfs, mode 1777
    os.chdir("/tmp/work")


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MESSAGE_MAX else text[: MESSAGE_MAX - 3] + "..."


def _solution_frame(tb) -> tuple[int, str] | None:
    """The innermost frame in the learner's code: (line, source line)."""
    found = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == SOLUTION_FILE and frame.lineno is not None:
            found = (frame.lineno, (frame.line or "").strip())
    return found


def _describe(exc: BaseException, *, visible_file: str | None) -> str:
    """A failure as a sentence: the assertion's own message, or the exception and where it was
    raised in the learner's code; a visible test's failing line when the assertion has none."""
    tb = exc.__traceback__
    if isinstance(exc, AssertionError):
        text = str(exc)
        if text:
            return _cut(text)
        lines = [f for f in traceback.extract_tb(tb) if f.filename == visible_file]
        if lines:
            return _cut(f"assertion failed: {lines[-1].line}")
        return "assertion failed (in a hidden test)"
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    at = _solution_frame(tb)
    if at:
        line, source = at
        text += f" (solution.py line {line}: {source})"
    return _cut(text)


def _tests(namespace: dict) -> list:
    return [
        (name, fn)
        for name, fn in namespace.items()
        if name.startswith("test_") and isinstance(fn, types.FunctionType)
    ]


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the learner may have closed it
            stream.flush()


def _on_cpu_limit(signum, frame):
    _emit({"event": "limit", "what": "cpu"})
    os._exit(3)


def main() -> None:
    raw = sys.stdin.buffer.read()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    job = json.loads(raw)
    del raw
    global RESULT_FD
    RESULT_FD = int(job.get("result_fd", RESULT_FD))
    sys.path.extend(job.get("path", []))
    _drop_privileges(job.get("uid"))
    _limits(job)
    _emit({"event": "start"})
    signal.signal(signal.SIGXCPU, _on_cpu_limit)
    sys.modules["checks"] = _checks_module()
    started = time.perf_counter()

    source = job["solution"]
    try:
        code = compile(source, SOLUTION_FILE, "exec")
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        _emit({
            "event": "syntax_error",
            "line": line,
            "offset": getattr(exc, "offset", None),
            "message": getattr(exc, "msg", None) or str(exc),
            "text": (getattr(exc, "text", None) or "").rstrip("\n")[:300],
        })  # fmt: skip
        _emit({"event": "done", "ms": round(1000 * (time.perf_counter() - started))})
        os._exit(0)
    linecache.cache[SOLUTION_FILE] = (len(source), None, source.splitlines(True), SOLUTION_FILE)
    module = types.ModuleType("solution")
    module.__file__ = SOLUTION_FILE
    sys.modules["solution"] = module
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # the learner's top level: SystemExit and all
        _emit({"event": "load_error", "message": _describe(exc, visible_file=None)})
        _emit({"event": "done", "ms": round(1000 * (time.perf_counter() - started))})
        _flush()  # what it printed before it failed is part of the answer
        os._exit(0)

    for suite in job["suites"]:
        visible = suite.get("visible", False)
        filename = f"<{suite['name']}>"
        test_source = suite.pop("source")
        if visible:
            linecache.cache[filename] = (len(test_source), None, test_source.splitlines(True),
                                         filename)  # fmt: skip
        namespace = {"__name__": f"tests_{suite['name']}"}
        try:
            exec(compile(test_source, filename, "exec"), namespace)
        except BaseException as exc:
            _emit(
                {
                    "event": "suite_error",
                    "suite": suite["name"],
                    "message": _describe(exc, visible_file=filename if visible else None),
                }
            )
            continue  # fmt: skip
        del test_source
        for name, fn in _tests(namespace):
            _emit({"event": "test_start", "name": name, "suite": suite["name"]})
            t0 = time.perf_counter()
            try:
                fn()
                passed, message = True, ""
            except BaseException as exc:  # SystemExit from the learner's code is a failure too
                passed = False
                message = _describe(exc, visible_file=filename if visible else None)
            _emit({
                "event": "test", "name": name, "suite": suite["name"], "passed": passed,
                "message": message, "ms": round(1000 * (time.perf_counter() - t0), 1),
            })  # fmt: skip
    _flush()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _emit({"event": "done", "ms": round(1000 * (time.perf_counter() - started)),
           "cpu_ms": round(1000 * (usage.ru_utime + usage.ru_stime))})  # fmt: skip
    os._exit(0)  # threads the learner left running end here, and the sandbox with them


if __name__ == "__main__":
    main()
