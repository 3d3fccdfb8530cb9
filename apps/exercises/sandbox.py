"""The sandbox that runs learners' code: one fresh bubblewrap process per run. Pure Python, no
Django: it builds the bwrap command line, runs apps/exercises/harness.py inside it, reads the
harness's JSON lines, and turns them (with the exit status, the time and the output) into an
Outcome capped in size.

What a run gets:
- namespaces of its own (no network but its own loopback, its own PIDs, IPC and hostname); a user
  namespace too when the worker is not root, with no further user namespaces allowed inside;
- a read-only root holding only the interpreter, its standard library (its site-packages hidden),
  numpy, and the shared libraries those load (found with ldd); a private tmpfs at /tmp of
  `tmpfs_mb`; a minimal /dev and its own /proc;
- an empty environment, no stdin but the job, and the job's own uid: a root worker starts the
  harness as root without capabilities but SETUID/SETGID, and the harness drops to a uid picked
  for this run before it reads a line of the learner's code, so the process limit counts this run
  alone (RLIMIT_NPROC is not enforced for root);
- a seccomp filter (apps/exercises/seccomp.py): no new user namespace, and for an ordinary run
  no new process either, so its address-space limit is its whole memory;
- rlimits on CPU time, address space, threads, file size and open files; a wall-clock deadline
  after which the whole process group is killed; a cap on what it may print;
- a run of an exercise with `runtime: ray`: the worker's site-packages, processes of its own, a
  /dev/shm for Ray's object store, and its processes' memory summed by the worker (_MemoryWatch)
  and stopped past the run's limit.

Where bwrap is missing or cannot start, `probe` says why and nothing is run: there is no
fallback that runs code bare.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from apps.exercises import seccomp
from apps.exercises.grading import Limits, Outcome, Suite, outcome_parse

HARNESS = Path(__file__).with_name("harness.py")
SANDBOX_DIR = "/sandbox"
SITE_DIR = f"{SANDBOX_DIR}/site"
EVENTS_MAX_BYTES = 512 * 1024
RUN_UIDS = (200_000, 260_000)  # the range a root worker picks each run's uid from
APP_PACKAGES = ("apps", "config")  # this app's own top-level packages


class SandboxUnavailable(Exception):
    """bwrap is missing or cannot start here; the message says why."""


# --- the read-only root -----------------------------------------------------------------------


@dataclass(frozen=True)
class Runtime:
    """The files a run may read: the interpreter, its standard library, numpy and their shared
    libraries, each bound read-only at its own path (numpy under SITE_DIR)."""

    python: str
    binds: tuple[str, ...]
    site: tuple[tuple[str, str], ...]  # (host path, path inside)
    hidden: tuple[str, ...]  # directories covered by an empty tmpfs
    symlinks: tuple[tuple[str, str], ...]  # (target, link) recreated inside


def _ldd_dirs(files: list[str]) -> set[str]:
    """The directories of every shared library `files` load (one ldd call)."""
    ldd = shutil.which("ldd")
    if not ldd or not files:
        return set()
    dirs = set()
    for start in range(0, len(files), 200):
        out = subprocess.run(
            [ldd, *files[start : start + 200]], capture_output=True, text=True, timeout=60
        ).stdout
        for line in out.splitlines():
            parts = line.split()
            path = next((p for p in parts if p.startswith("/")), None)
            if path and os.path.exists(path):
                dirs.add(os.path.dirname(os.path.realpath(path)))
                dirs.add(os.path.dirname(path))
    return dirs


def _elf_files(top: str) -> list[str]:
    """Shared libraries and executables under `top` (what ldd can read)."""
    found = []
    for root, _, files in os.walk(top):
        for name in files:
            path = os.path.join(root, name)
            if name.endswith(".so") or ".so." in name:
                found.append(path)
            elif os.access(path, os.X_OK) and not os.path.islink(path):
                with contextlib.suppress(OSError), open(path, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        found.append(path)
    return found


@functools.cache
def runtime_discover(packages: str = "numpy") -> Runtime:
    """This interpreter's runtime (the sandbox runs the worker's own Python, so the learner's
    numpy is the tested one): with `packages="numpy"` numpy alone, with "ray" every package of
    the worker's site-packages (Ray and its binaries, RLlib, torch). Computed once per process."""
    python = os.path.realpath(sys.executable)
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})
    stdlib = os.path.realpath(paths["stdlib"])
    binds = {python, stdlib}
    libdir = sysconfig.get_config_var("LIBDIR")
    soname = sysconfig.get_config_var("INSTSONAME")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and libdir and soname:
        for name in {soname, sysconfig.get_config_var("LDLIBRARY")}:
            candidate = os.path.join(libdir, name or "")
            if name and os.path.exists(candidate):
                binds.add(os.path.realpath(candidate))
    spec = importlib.util.find_spec("numpy")
    site: list[tuple[str, str]] = []
    shared = [python]
    dynload = os.path.join(stdlib, "lib-dynload")
    if os.path.isdir(dynload):
        shared += [os.path.join(dynload, f) for f in os.listdir(dynload) if f.endswith(".so")]
    if spec and spec.submodule_search_locations:
        numpy_dir = os.path.realpath(list(spec.submodule_search_locations)[0])
        if packages == "ray":
            site_packages = os.path.dirname(numpy_dir)
            site.append((site_packages, SITE_DIR))
            shared += _elf_files(site_packages)
        else:
            site.append((numpy_dir, f"{SITE_DIR}/numpy"))
            libs = os.path.join(os.path.dirname(numpy_dir), "numpy.libs")
            if os.path.isdir(libs):
                site.append((os.path.realpath(libs), f"{SITE_DIR}/numpy.libs"))
            for root, _, files in os.walk(numpy_dir):
                shared += [os.path.join(root, f) for f in files if f.endswith(".so")]
    lib_dirs = {d for d in _ldd_dirs(shared) if not d.startswith(tuple(h for h, _ in site))}
    symlinks = []
    for top in ("/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(top):
            symlinks.append((os.readlink(top), top))
    resolved = set()
    for d in lib_dirs:
        real = os.path.realpath(d)
        if real not in (stdlib,) and not real.startswith(stdlib + os.sep):
            resolved.add(real)
    binds |= resolved
    # A directory inside another bound one needs no bind of its own.
    kept = sorted(b for b in binds if not any(b != o and b.startswith(o + os.sep) for o in binds))
    hidden = [
        d for d in (os.path.join(stdlib, "site-packages"), os.path.join(stdlib, "dist-packages"))
        if os.path.isdir(d)
    ]  # fmt: skip
    for host, inside in site:
        # An image that pip-installs the app puts its own code beside Ray: never shown.
        hidden += [f"{inside}/{name}" for name in APP_PACKAGES
                   if inside == SITE_DIR and os.path.isdir(os.path.join(host, name))]  # fmt: skip
    return Runtime(python, tuple(kept), tuple(site), tuple(hidden), tuple(symlinks))


def runtime_problem(packages: str) -> str | None:
    """Why this worker cannot give a run the packages it declares (None: it can). The "ray"
    runtime is the worker's own Ray and RLlib with torch: the rllib extra."""
    if packages != "ray":
        return None
    missing = [name for name in ("ray", "torch") if importlib.util.find_spec(name) is None]
    if missing:
        return f"this worker has no {' or '.join(missing)} (install the rllib extra)"
    return None


def run_uid() -> int:
    low, high = RUN_UIDS
    return low + secrets.randbelow(high - low)


def command(
    runtime: Runtime,
    limits: Limits,
    *,
    bwrap: str = "/usr/bin/bwrap",
    privileged: bool,
    harness: str = str(HARNESS),
    info_fd: int | None = None,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The bwrap command line of one run. `privileged`: the worker is root, so bwrap makes no
    user namespace (a uid mapped to root would escape RLIMIT_NPROC) and the harness drops to the
    run's uid itself; otherwise a user namespace maps the sandbox's nobody to the worker."""
    cmd = [
        bwrap,
        "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
        "--unshare-cgroup-try", "--hostname", "sandbox",
        "--die-with-parent", "--new-session", "--clearenv",
        *(["--info-fd", str(info_fd)] if info_fd is not None else []),
        *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
        "--setenv", "HOME", "/tmp/work", "--setenv", "LANG", "C.UTF-8",
        "--setenv", "PATH", "/nonexistent",
        "--setenv", "OPENBLAS_NUM_THREADS", "1", "--setenv", "OMP_NUM_THREADS", "1",
        "--setenv", "MKL_NUM_THREADS", "1",
    ]  # fmt: skip
    if limits.runtime == "ray":
        # Ray starts its workers as `python default_worker.py`: they find the packages through
        # PYTHONPATH (the harness itself runs isolated, -I, and is given the path in the job).
        cmd += ["--setenv", "PYTHONPATH", SITE_DIR, "--setenv", "RAY_USAGE_STATS_ENABLED", "0"]
    if privileged:
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        cmd += ["--unshare-user", "--uid", "65534", "--gid", "65534", "--disable-userns"]
    for target, link in runtime.symlinks:
        cmd += ["--symlink", target, link]
    inside = [*runtime.binds, *(dest for _, dest in runtime.site), f"{SANDBOX_DIR}/harness.py"]
    made = set()
    for path in sorted(inside):
        parents = []
        parent = os.path.dirname(path)
        while parent not in ("/", "") and parent not in made:
            if any(parent == link for _, link in runtime.symlinks):
                break
            parents.append(parent)
            parent = os.path.dirname(parent)
        for p in reversed(parents):
            cmd += ["--perms", "0755", "--dir", p]
            made.add(p)
    for path in runtime.binds:
        cmd += ["--ro-bind", path, path]
    for host, dest in runtime.site:
        cmd += ["--ro-bind", host, dest]
    for path in runtime.hidden:  # after the binds: a hidden path may lie inside one
        cmd += ["--tmpfs", path]
    cmd += [
        "--ro-bind", harness, f"{SANDBOX_DIR}/harness.py",
        "--proc", "/proc", "--dev", "/dev",
        *(["--size", str(limits.shm_mb << 20), "--perms", "1777", "--tmpfs", "/dev/shm"]
          if limits.shm_mb else []),
        "--size", str(limits.tmpfs_mb << 20), "--perms", "1777", "--tmpfs", "/tmp",
        "--chdir", "/tmp",
        "--", runtime.python, "-I", "-S", "-B", "-X", "utf8", f"{SANDBOX_DIR}/harness.py",
    ]  # fmt: skip
    return cmd


# --- running one job ---------------------------------------------------------------------------


@dataclass
class _Stream:
    kept: bytearray = field(default_factory=bytearray)
    total: int = 0


WATCH_EVERY_S = 0.1


def _sandbox_pid(info: bytes) -> int | None:
    """The sandbox's pid 1, as bwrap reports it on its info fd."""
    try:
        return int(json.loads(info.decode().split("}")[0] + "}")["child-pid"])
    except (ValueError, KeyError, IndexError, UnicodeDecodeError):
        return None


def _descendants(root: int) -> list[int]:
    """`root` and every process under it (from each process's parent in /proc)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        parent = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _anonymous_kb(pid: int) -> int:
    """A process's own memory: its anonymous resident pages (shared libraries and files are
    the page cache's; /tmp and /dev/shm are bounded tmpfs mounts of their own)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"RssAnon:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class _MemoryWatch:
    """The memory of a run of many processes, summed every WATCH_EVERY_S: RLIMIT_AS bounds
    each process alone, so this is what bounds them together (without a cgroup to do it in
    the kernel; a burst faster than the watch can overshoot by what it allocates in 0.1 s)."""

    def __init__(self, limit_mb: int):
        self.limit_kb = limit_mb << 10
        self.peak_mb = 0
        self.next_at = 0.0

    def over(self, info: bytes) -> bool:
        now = time.monotonic()
        if not self.limit_kb or now < self.next_at:
            return False
        self.next_at = now + WATCH_EVERY_S
        root = _sandbox_pid(info)
        if root is None:
            return False
        total = sum(_anonymous_kb(pid) for pid in _descendants(root))
        self.peak_mb = max(self.peak_mb, total >> 10)
        return total > self.limit_kb


def _stop(proc: subprocess.Popen, info: bytes) -> None:
    """Kill the sandbox's pid 1 (bwrap reports its pid on the info fd): the kernel then kills
    every process of its pid namespace before pid 1 is gone, and bwrap exits only after that,
    so nothing the code started outlives the run. The process group goes too, in case."""
    child = _sandbox_pid(info)
    if child:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def run(
    code: str,
    suites: list[Suite],
    limits: Limits,
    *,
    runtime: Runtime | None = None,
    bwrap: str = "/usr/bin/bwrap",
) -> Outcome:
    """Run `code` against `suites` in a fresh sandbox and say how it went. Never raises for
    anything the code does; SandboxUnavailable when bwrap is not there at all."""
    if not os.access(bwrap, os.X_OK):
        raise SandboxUnavailable(f"{bwrap} is not installed (Debian package bubblewrap)")
    runtime = runtime or runtime_discover(limits.runtime)
    privileged = os.geteuid() == 0
    try:
        syscall_filter = seccomp.bpf(spawn=limits.spawns)
    except seccomp.UnknownArchitecture as exc:
        raise SandboxUnavailable(str(exc)) from None
    job = {
        "solution": code,
        "suites": [{"name": s.name, "source": s.source, "visible": s.visible} for s in suites],
        "limits": asdict(limits),
        "uid": run_uid() if privileged else None,
        "path": [SITE_DIR],
    }
    read_end, write_end = os.pipe()
    info_read, info_write = os.pipe()
    filter_read, filter_write = os.pipe()
    os.write(filter_write, syscall_filter)  # a few hundred bytes: the pipe holds them
    os.close(filter_write)
    job["result_fd"] = write_end
    payload = json.dumps(job).encode()
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            command(runtime, limits, bwrap=bwrap, privileged=privileged, info_fd=info_write,
                    seccomp_fd=filter_read),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(write_end, info_write, filter_read),
            env={},  # bwrap's own environment too: the sandbox's pid 1 keeps it in /proc
            start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        for fd in (read_end, write_end, info_read, info_write, filter_read):
            os.close(fd)
        raise SandboxUnavailable(f"bwrap could not be started: {exc}") from None
    os.close(write_end)
    os.close(info_write)
    os.close(filter_read)
    return _collect(proc, read_end, info_read, payload, limits, suites, started)


def _collect(proc, read_end, info_read, payload, limits, suites, started) -> Outcome:
    def feed():
        try:
            proc.stdin.write(payload)
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    streams = {"stdout": _Stream(), "stderr": _Stream(), "events": _Stream(), "info": _Stream()}
    files = {proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr", read_end: "events",
             info_read: "info"}  # fmt: skip
    sel = selectors.DefaultSelector()
    for fd in files:
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    deadline = started + limits.wall_s
    why_stopped = ""
    first_event_at = None
    watch = _MemoryWatch(limits.run_memory_mb) if limits.spawns else None
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            why_stopped = "wall"
            break
        if watch is not None and watch.over(bytes(streams["info"].kept)):
            why_stopped = "memory"
            break
        for key, _ in sel.select(timeout=min(left, WATCH_EVERY_S if watch else 0.5)):
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(key.fd)
                continue
            name = files[key.fd]
            stream = streams[name]
            stream.total += len(chunk)
            if name == "events":
                if first_event_at is None:
                    first_event_at = time.monotonic()
                if stream.total <= EVENTS_MAX_BYTES:
                    stream.kept += chunk
            elif name == "info":
                stream.kept += chunk[:4096]
            elif len(stream.kept) < limits.shown_bytes:
                stream.kept += chunk[: limits.shown_bytes - len(stream.kept)]
        if streams["stdout"].total + streams["stderr"].total > limits.output_bytes:
            why_stopped = "output"
            break
    if why_stopped:
        _stop(proc, bytes(streams["info"].kept))
    returncode = proc.wait()
    elapsed_ms = round(1000 * (time.monotonic() - started))
    sel.close()
    for pipe in (proc.stdout, proc.stderr):
        pipe.close()
    os.close(read_end)
    os.close(info_read)
    writer.join(timeout=1)
    return outcome_parse(
        bytes(streams["events"].kept),
        suites=suites,
        limits=limits,
        returncode=returncode,
        stopped=why_stopped,
        stdout=bytes(streams["stdout"].kept),
        stderr=bytes(streams["stderr"].kept),
        stdout_bytes=streams["stdout"].total,
        stderr_bytes=streams["stderr"].total,
        time_ms=elapsed_ms,
        startup_ms=round(1000 * (first_event_at - started)) if first_event_at else None,
        memory_peak_mb=watch.peak_mb if watch else None,
    )


def probe(*, bwrap: str = "/usr/bin/bwrap", limits: Limits | None = None) -> str | None:
    """None when a sandbox starts and runs Python with numpy here; otherwise why not, as a
    sentence fit for a page."""
    test = Suite(
        "probe", "import numpy\n\ndef test_probe():\n    assert numpy.ones(2).sum() == 2\n"
    )
    try:
        outcome = run("", [test], limits or Limits(wall_s=30), bwrap=bwrap)
    except SandboxUnavailable as exc:
        return str(exc)
    except Exception as exc:  # the runtime could not be read, ldd is missing...
        return f"the sandbox could not be prepared: {type(exc).__name__}: {exc}"
    if outcome.status == "error":
        return outcome.problem
    if not outcome.passed:
        return f"a sandbox started but could not run Python with numpy: {outcome.problem}"
    return None
