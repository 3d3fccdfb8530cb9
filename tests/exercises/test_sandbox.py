"""The sandbox's pure parts: the command line it builds, and reading a run's result from the
harness's lines, whatever the learner's code wrote into them."""

import json

from hypothesis import given
from hypothesis import strategies as st

from apps.exercises import grading, sandbox

SUITES = [
    grading.Suite("examples", "def test_a():\n    pass\n", visible=True),
    grading.Suite("hidden", "def test_b():\n    pass\n\ndef test_c():\n    pass\n"),
]
LIMITS = grading.Limits(cpu_s=1, wall_s=2)


def lines(*events) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


def runtime() -> sandbox.Runtime:
    return sandbox.Runtime(
        python="/opt/py/bin/python3.11",
        binds=("/opt/py/bin/python3.11", "/opt/py/lib"),
        site=(("/venv/site-packages/numpy", "/sandbox/site/numpy"),),
        hidden=("/opt/py/lib/python3.11/site-packages",),
        symlinks=(("usr/lib", "/lib"),),
    )


def test_every_run_is_isolated_and_bounded():
    for privileged in (True, False):
        cmd = sandbox.command(runtime(), LIMITS, privileged=privileged)
        for flag in (
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ):
            assert flag in cmd
        assert "--share-net" not in cmd and "--bind" not in cmd and "--dev-bind" not in cmd
        assert cmd[cmd.index("--size") + 1] == str(64 << 20)  # the tmpfs is bounded
        inside = [cmd[i + 2] for i, arg in enumerate(cmd) if arg == "--ro-bind"]
        assert all(not b.startswith(("/etc", "/home", "/var", "/work")) for b in inside)
    unprivileged = sandbox.command(runtime(), LIMITS, privileged=False)
    assert "--unshare-user" in unprivileged and "--disable-userns" in unprivileged
    privileged = sandbox.command(runtime(), LIMITS, privileged=True)
    assert "--unshare-user" not in privileged  # a uid mapped to root escapes RLIMIT_NPROC
    assert privileged[privileged.index("--cap-drop") + 1] == "ALL"


def test_the_real_runtime_holds_no_app_code():
    rt = sandbox.runtime_discover()
    for path in rt.binds:
        assert "site-packages" not in path and "/apps" not in path, path
    assert any(dest == "/sandbox/site/numpy" for _, dest in rt.site)


def test_a_ray_run_never_sees_the_app_installed_beside_ray(tmp_path):
    site = tmp_path / "site-packages"
    for name in ("ray", "apps", "config"):
        (site / name).mkdir(parents=True)
    rt = sandbox.Runtime(
        python="/opt/py/bin/python3.11", binds=("/opt/py/lib",),
        site=((str(site), "/sandbox/site"),), hidden=("/sandbox/site/apps", "/sandbox/site/config"),
        symlinks=(),
    )  # fmt: skip
    cmd = sandbox.command(rt, grading.Limits(runtime="ray"), privileged=True)
    bind_at = cmd.index("/sandbox/site")
    for hidden in ("/sandbox/site/apps", "/sandbox/site/config"):
        assert cmd.index(hidden) > bind_at and cmd[cmd.index(hidden) - 1] == "--tmpfs"


def test_a_complete_run_passes():
    events = lines(
        {"event": "start"},
        *[
            {"event": "test", "name": n, "suite": s, "passed": True}
            for s, n in (("examples", "test_a"), ("hidden", "test_b"), ("hidden", "test_c"))
        ],
        {"event": "done"},
    )
    out = grading.outcome_parse(events, suites=SUITES, limits=LIMITS, returncode=0)
    assert out.status == "passed" and [t.name for t in out.tests] == ["test_a", "test_b", "test_c"]


def test_a_run_killed_mid_test_names_the_test_and_fails_the_rest():
    events = lines(
        {"event": "start"},
        {"event": "test", "name": "test_a", "suite": "examples", "passed": True},
        {"event": "test_start", "name": "test_b", "suite": "hidden"},
    )
    out = grading.outcome_parse(events, suites=SUITES, limits=LIMITS, returncode=-9, stopped="wall")
    assert out.status == "failed" and "wall-clock" in out.problem
    assert out.tests[1].message.startswith("stopped in this test")
    assert out.tests[2].message.startswith("not run")


def test_no_start_line_is_the_sandbox_failing_not_the_learner():
    out = grading.outcome_parse(
        b"",
        suites=SUITES,
        limits=LIMITS,
        returncode=1,
        stderr=b"bwrap: No permissions to creating new namespace",
    )
    assert out.status == "error" and "No permissions" in out.problem and out.tests == []


def test_a_forged_pass_for_a_test_nobody_wrote_is_ignored():
    events = lines(
        {"event": "start"},
        {"event": "test", "name": "test_zzz", "suite": "hidden", "passed": True},
        {"event": "done"},
    )
    out = grading.outcome_parse(events, suites=SUITES, limits=LIMITS, returncode=0)
    assert out.status == "failed" and all(not t.passed for t in out.tests)


@given(st.binary(max_size=2000), st.integers(-64, 255), st.sampled_from(["", "wall", "output"]))
def test_whatever_the_code_writes_every_test_is_listed_once(junk, code, stopped):
    out = grading.outcome_parse(
        lines({"event": "start"}) + junk,
        suites=SUITES,
        limits=LIMITS,
        returncode=code,
        stopped=stopped,
        stdout=junk,
        stdout_bytes=len(junk),
    )
    assert [t.name for t in out.tests] == ["test_a", "test_b", "test_c"]
    assert out.status in ("passed", "failed")
    assert out.status == "failed" or (not stopped and code == 0)


def test_output_is_kept_to_the_shown_size():
    out = grading.outcome_parse(
        lines({"event": "start"}),
        suites=SUITES,
        limits=LIMITS,
        returncode=0,
        stdout=b"x" * 4096,
        stdout_bytes=10**8,
    )
    assert len(out.stdout) < 4200 and "more bytes not shown" in out.stdout


def test_a_failure_never_shows_two_numbers_that_read_alike():
    from apps.exercises.harness import assert_close

    for got, want in ((1.0000001, 1.0000002), (0.30000000000000004, 0.3), (1e-12, 2e-12)):
        try:
            assert_close(got, want, name="x", rtol=0, atol=0)
        except AssertionError as exc:
            shown = str(exc).split(" (tolerance")[0]
            a, b = shown.removeprefix("x is ").split(", expected ")
            assert a != b, str(exc)
        else:
            raise AssertionError(f"{got} and {want} passed with no tolerance")


def test_a_float32_answer_passes_the_default_tolerance():
    import numpy as np

    from apps.exercises.harness import assert_close

    def discounted(rewards, dtype):
        out, running = np.zeros(len(rewards), dtype), dtype(0)
        for t in reversed(range(len(rewards))):
            running = dtype(rewards[t]) + dtype(0.99) * running
            out[t] = running
        return out

    rng = np.random.default_rng(0)
    for _ in range(50):  # a GAE-like recursion over a 100-step rollout, in float32 and float64
        rewards = rng.normal(size=100)
        want = discounted(rewards, np.float64)
        assert_close(discounted(rewards, np.float32), want, name="float32 returns")
