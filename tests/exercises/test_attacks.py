"""The sandbox under attack: each attack is a real submission run by the worker in the real
sandbox, with the small limits of tests/exercises/conftest.py. Each ends as a failed result
within its limits, nothing leaks out of the run or into the next one, and the worker goes on
serving."""

import os
import socket
from pathlib import Path

import pytest
from django.conf import settings

from apps.exercises import services
from apps.exercises.models import Submission
from tests.exercises.conftest import GOOD, needs_bwrap, submit

pytestmark = [pytest.mark.django_db, needs_bwrap]
ANSWER_TESTS = "from solution import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
WALL_MS = 2000
SLACK_MS = 1500  # bwrap's start and the teardown, on a loaded 2-core machine


def answer_doc(**changes):
    from tests.exercises.conftest import adder_doc

    return adder_doc(
        **{
            "slug": "answer",
            "examples": "",
            "tests": ANSWER_TESTS,
            "reference": "def answer():\n    return 42\n",
            "wrong": [{"mistake": "off by one", "code": "def answer():\n    return 41\n"}],
            **changes,
        }
    )


@pytest.fixture
def answer(small_deck, small_limits):
    revision, _ = services.exercise_save(deck=small_deck, doc=answer_doc(), accept=True)
    return revision.exercise


@pytest.fixture
def spawning(small_deck, settings):
    """An exercise that declares `runtime: ray`: its runs may start processes (Ray's), with the
    run's memory watched as a whole. Small limits here: 3 s in all, 600 MB together."""
    settings.EXERCISES_RAY_WALL_S = 3
    settings.EXERCISES_RAY_MEMORY_MB = 600
    doc = answer_doc(slug="answer-with-processes", runtime="ray")
    revision, _ = services.exercise_save(deck=small_deck, doc=doc, accept=True)
    return revision.exercise


def attack(user, exercise, code: str, *, wall_ms: int = WALL_MS) -> Submission:
    result = submit(user, exercise, code)
    assert result.status == Submission.Status.FAILED, (result.status, result.problem)
    assert result.time_ms <= wall_ms + SLACK_MS, f"the run took {result.time_ms} ms"
    return result


def sandbox_processes() -> list[int]:
    """Processes of a finished run still alive on this machine: a harness or a sleeper whose
    sandbox (bwrap) is gone. A run still going, anyone's on a shared machine, has its bwrap."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            stat = Path(f"/proc/{pid}/stat").read_bytes()
            parent = int(stat[stat.rindex(b")") + 2 :].split()[1])
            parent_cmdline = Path(f"/proc/{parent}/cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        ours = b"/sandbox/harness.py" in cmdline or b"sleeper_marker_55" in cmdline
        is_sandbox = b"bwrap" in cmdline.split(b"\0")[0]  # a worker's own child, not the code's
        if ours and not is_sandbox and b"bwrap" not in parent_cmdline:
            found.append(int(pid))
    return found


def test_no_socket_reaches_the_database_the_broker_or_a_host_listener(alice, answer):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    code = f"""
import socket
for port in (5432, 6379, {port}):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1)
        print("CONNECTED", port)
    except OSError as exc:
        print("refused", port, type(exc).__name__)
print("interfaces", [name for _, name in socket.if_nameindex()])
print("routes", open("/proc/net/route").read().strip().count(chr(10)))
try:
    socket.getaddrinfo("pypi.org", 443)
    print("RESOLVED")
except OSError as exc:
    print("no dns", type(exc).__name__)
"""
    try:
        result = attack(alice, answer, code)
    finally:
        listener.close()
    assert "CONNECTED" not in result.stdout and "RESOLVED" not in result.stdout
    assert result.stdout.count("refused") == 3
    assert "interfaces ['lo']" in result.stdout  # no interface but its own loopback
    assert "routes 0" in result.stdout  # the header line only: no route anywhere
    assert "no dns" in result.stdout


def test_no_secret_file_or_environment_can_be_read(alice, answer):
    settings_file = Path(settings.BASE_DIR) / "config" / "settings.py"
    code = f"""
import os
print("root", sorted(os.listdir("/")))
for path in ("/etc/shadow", "/etc/passwd", {str(settings_file)!r}, {str(settings.BASE_DIR)!r},
             "/var", "/home", "/proc/1/environ"):
    try:
        data = open(path, "rb").read() if not os.path.isdir(path) else os.listdir(path)
        print("GOT-IT", path, len(data))
    except OSError as exc:
        print("denied", path, type(exc).__name__)
print("env", sorted(os.environ))
"""
    result = attack(alice, answer, code)
    out = result.stdout
    assert "GOT-IT" not in out, out
    assert out.count("denied") >= 6, out
    # The root holds what Python and numpy need, and the run's own /tmp, /dev and /proc.
    top = set(eval(out.split("root ")[1].splitlines()[0]))  # noqa: S307 (our own printed list)
    assert top <= {"usr", "lib", "lib64", "sandbox", "tmp", "dev", "proc", "root", "opt"}, top
    for secret in ("SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL"):
        assert secret not in out
    assert os.environ.get("PATH", "") not in out or not os.environ.get("PATH")


def test_nothing_outside_the_tmpfs_can_be_written(alice, answer):
    code = """
for path in ("/x", "/usr/lib/x", "/sandbox/harness.py", "/sandbox/site/numpy/x", "/proc/x"):
    try:
        open(path, "w").write("x")
        print("WROTE", path)
    except OSError as exc:
        print("denied", path, type(exc).__name__)
open("/tmp/work/mine.txt", "w").write("fine")
print("tmp ok")
"""
    result = attack(alice, answer, code)
    assert "WROTE" not in result.stdout and result.stdout.count("denied") == 5
    assert "tmp ok" in result.stdout


def test_a_run_leaves_nothing_for_the_next_one(alice, bob, answer, spawning):
    first = """
import os, subprocess, sys
open("/tmp/work/alice-secret.txt", "w").write("alice's notes")
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # sleeper_marker_55"])
print("planted")
"""
    assert "planted" in attack(alice, spawning, first, wall_ms=3000).stdout
    assert not sandbox_processes(), "a process of alice's run outlived it"
    second = """
import os
print("files", os.listdir("/tmp"), os.listdir("/tmp/work"))
print("procs", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
"""
    out = attack(bob, answer, second).stdout
    assert "alice-secret" not in out, out
    procs = eval(out.split("procs ")[1].splitlines()[0])  # noqa: S307 (our own printed list)
    assert len(procs) <= 3, f"bob's run sees other processes: {procs}"  # bwrap, the harness


def test_a_fork_bomb_ends_at_its_limits_and_the_worker_goes_on(alice, answer):
    code = """
import os
def answer():
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""
    result = attack(alice, answer, code)
    assert "limit" in result.problem or "stopped" in result.tests[0]["message"], result.problem
    assert not sandbox_processes(), "the fork bomb's processes outlived the run"
    good = submit(alice, answer, "def answer():\n    return 42\n")
    assert good.status == Submission.Status.PASSED, good.problem


NEW_USER_NAMESPACE = """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
print("unshare", libc.unshare(0x10000000), errno.errorcode.get(ctypes.get_errno()))
# clone3(struct clone_args *, size): its flags live in memory no filter can read
args = (ctypes.c_uint64 * 11)(0x10000000, 0, 0, 0, 17)
print("clone3", libc.syscall(435, args, 88), errno.errorcode.get(ctypes.get_errno()))
print("caps", [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")])
"""


@pytest.mark.parametrize("runtime", ["numpy", "ray"])
def test_no_user_namespace_can_be_made_inside(alice, answer, spawning, runtime):
    """Inside a new user namespace the code would hold every capability over it (mount, chroot):
    a root worker starts the sandbox without one of its own, so the seccomp filter refuses it."""
    result = attack(alice, answer if runtime == "numpy" else spawning, NEW_USER_NAMESPACE,
                    wall_ms=3000)  # fmt: skip
    assert "unshare -1 EPERM" in result.stdout, result.stdout + result.stderr
    assert "clone3 -1 ENOSYS" in result.stdout, result.stdout
    assert "caps ['0000000000000000']" in result.stdout, result.stdout


def test_an_ordinary_run_is_one_process_so_its_memory_limit_is_the_whole_run(alice, answer):
    code = """
import os, subprocess, sys, threading
for start in (os.fork, lambda: subprocess.run([sys.executable, "-c", "pass"])):
    try:
        start()
        print("STARTED A PROCESS")
        os._exit(0)
    except OSError as exc:
        print("refused", type(exc).__name__)
held = []
def take():
    try:
        held.append(bytearray(100 << 20))
    except MemoryError:
        print("MemoryError")
threads = [threading.Thread(target=take) for _ in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("held MB", 100 * len(held))
"""
    result = attack(alice, answer, code)
    assert "STARTED" not in result.stdout and result.stdout.count("refused PermissionError") == 2
    held = int(result.stdout.split("held MB ")[1].split()[0])
    assert held <= 256 and "MemoryError" in result.stdout, result.stdout  # 256 MB in all


def test_processes_of_a_run_are_capped_together(alice, spawning):
    """Six children of 200 MB each: every one is within its own address-space limit, but the
    run's 600 MB is for all its processes together, so the run is stopped."""
    code = """
import os, time
for _ in range(6):
    if os.fork() == 0:
        block = bytearray(200 << 20)  # touched: bytearray zero-fills it
        time.sleep(30)
        os._exit(0)
time.sleep(30)
"""
    result = attack(alice, spawning, code, wall_ms=3000)
    assert "more than 600 MB" in result.problem, result.problem
    assert not sandbox_processes(), "a child outlived the run"


def test_four_gigabytes_are_refused(alice, answer):
    result = attack(alice, answer, "def answer():\n    return len(bytearray(4 << 30))\n")
    assert "MemoryError" in result.tests[0]["message"]


def test_an_endless_loop_stops_at_the_cpu_limit(alice, answer):
    result = attack(alice, answer, "def answer():\n    while True:\n        pass\n")
    # 1 s of CPU, or 2 s of wall-clock time where a loaded machine gave it less than 1 s of CPU
    assert "CPU time" in result.problem or "wall-clock" in result.problem, result.problem
    assert result.tests[0]["message"].startswith("stopped in this test")


def test_a_sleep_forever_stops_at_the_wall_clock(alice, answer):
    result = attack(alice, answer, "import time\ndef answer():\n    time.sleep(600)\n")
    assert "wall-clock" in result.problem


def test_printing_100_megabytes_is_cut(alice, answer):
    code = "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * (1 << 20))\n"
    result = attack(alice, answer, code)
    assert "output limit" in result.problem
    assert len(result.stdout) < 8 * 1024 and "more bytes not shown" in result.stdout


def test_a_segfault_through_ctypes_is_a_failed_result(alice, answer):
    result = attack(alice, answer, "import ctypes\nctypes.string_at(0)\n")
    assert "segmentation fault" in result.problem
    good = submit(alice, answer, "def answer():\n    return 42\n")
    assert good.status == Submission.Status.PASSED


def test_a_subprocess_and_a_thread_left_running_do_not_hold_the_result(alice, spawning):
    code = """
import subprocess, sys, threading, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)  # sleeper_marker_55"])
threading.Thread(target=time.sleep, args=(60,)).start()  # not a daemon
def answer():
    return 41
"""
    result = attack(alice, spawning, code, wall_ms=3000)
    assert result.time_ms < 3000, "the run waited for what it left running"
    assert result.tests[0]["passed"] is False and "41" not in result.problem
    assert not sandbox_processes()


def test_the_worker_serves_a_normal_submission_after_the_attacks(alice, adder):
    assert submit(alice, adder, GOOD).status == Submission.Status.PASSED
