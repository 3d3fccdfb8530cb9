"""The shipped sizing drills: every drawn number on its author's grid, and every key equal to an
answer worked out here by hand, independently of the drill's own formula, over many attempts."""

import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.decks.content import read_yaml
from apps.quizzes import drills, scoring
from apps.quizzes.content import question_parse

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _shipped():
    deck = yaml.safe_load((FIXTURES / "decks" / "distributed-rl-on-ray.yaml").read_text())
    cards = {c["slug"] for s in deck["sections"] for c in s["cards"]}
    quizzes = read_yaml((FIXTURES / "quizzes" / "distributed-rl-on-ray.yaml").read_text(), "q")
    docs = {}
    for quiz in quizzes["quizzes"]:
        for i, raw in enumerate(quiz["questions"]):
            if raw.get("kind") == "numeric":
                doc = question_parse("q", quiz["slug"], i, raw, cards, quiz["kind"])
                docs[doc.slug] = doc
    return docs


DOCS = _shipped()


# The answer of each drill, written from its prompt, not from its formula.
def _runners(g):
    samples_per_s = g["envs"] / ((g["envs"] * g["env_ms"] + g["infer_ms"]) / 1000)
    return math.ceil(g["learner_sps"] / samples_per_s - 1e-9)


# Hardware figures the drills state: an H100 SXM's dense BF16 peak is about 989 TFLOPS, and PCIe
# Gen5 x16 carries about 63 GB/s in one direction.
def _h100_samples(g):
    flops_per_new_sample = 3 * g["gflop_fwd"] * 1e9 * g["epochs"]  # backward = 2 x forward
    return 989e12 * g["mfu"] / 100 / flops_per_new_sample


def _cpu_nodes(g):
    cpu_seconds_per_s = g["gpus"] * g["ksps"] * 1e3 * g["env_us"] * 1e-6
    cores = cpu_seconds_per_s * (1 + g["overhead"] / 100)
    return math.ceil(cores / (g["cores"] - 2) - 1e-6)


def _link_share(g):
    sample_bytes = g["stack"] * g["side"] ** 2 + g["extra"]
    bits_per_s = g["gpus"] * g["ksps"] * 1e3 * sample_bytes * 8
    return 100 * bits_per_s / (g["nic"] * 1e9)


def _run_cost(g):
    learners = 8 * g["gpu_nodes"] * g["learner_ksps"] * 1e3
    samplers = g["cpu_nodes"] * g["node_ksps"] * 1e3
    hours = g["steps_b"] * 1e9 / min(learners, samplers) / 3600
    return hours * (g["gpu_nodes"] * g["gpu_price"] + g["cpu_nodes"] * g["cpu_price"])


def _copy_share(g):
    copy_ms = g["batch"] * g["kb"] * 1e3 / (63e9 * g["eff"] / 100) * 1e3
    return 100 * copy_ms / (copy_ms + g["step_ms"])


REFERENCE = {
    "env-runners-to-feed-learner": _runners,
    "replay-buffer-memory": lambda g: (
        g["transitions_m"] * 1e6 * (2 * g["side"] ** 2 * g["stack"] + 13) / 1024**3
    ),
    "weight-broadcast-traffic": lambda g: (
        g["params_m"] * 1e6 * 4 * 8 * g["nodes"] * (g["updates_per_s"] / g["interval"]) / 1e9
    ),
    "policy-lag-from-queue": lambda g: (
        (g["rollout_len"] / g["env_sps"] + g["queue"] / g["updates_per_s"]) * g["updates_per_s"]
    ),
    "bundles-per-node-pool": lambda g: (
        g["nodes"]
        * min(
            g["node_cpus"] // g["b_cpu"], g["node_gpus"] // g["b_gpu"], g["node_mem"] // g["b_mem"]
        )
    ),
    "replay-ratio-from-rates": lambda g: (
        g["batch"] * g["updates_per_s"] / (g["actors"] * g["actor_sps"])
    ),
    "frames-budget-to-hours": lambda g: g["frames_b"] * 1e9 / g["repeat"] / g["sps"] / 3600,
    "ape-x-actor-epsilon": lambda g: 0.4 ** (1 + 7 * g["index"] / (g["actors"] - 1)),
    "ring-all-reduce-time": lambda g: (
        2
        * (g["learners"] - 1)
        / g["learners"]
        * g["params_m"]
        * 1e6
        * g["bytes_per"]
        * 8
        / (g["gbps"] * 1e9)
        * 1000
    ),
    "ppo-updates-per-iteration": lambda g: g["epochs"] * (g["batch"] // g["minibatch"]),
    "object-store-batches-before-spilling": lambda g: int(
        0.3 * g["node_gib"] * 1024 // g["batch_mb"]
    ),
    "gae-weight-horizon": lambda g: next(
        k for k in range(1, 10_000) if (g["gamma"] * g["lam"]) ** k < g["pct"] / 100
    ),
    "memory-monitor-headroom": lambda g: next(
        n for n in range(10_000) if g["base_gib"] + (n + 1) * g["task_gib"] > 0.95 * g["node_gib"]
    ),
    "impala-sample-results-per-update": lambda g: next(
        k for k in range(1, 10_000) if k * g["envs"] * g["frag"] >= g["learners"] * g["tbs"]
    ),
    "prefetch-overlap-speedup": lambda g: (
        (g["mb"] / 1000 / g["gbs"] * 1000 + g["comp_ms"])
        / max(g["mb"] / 1000 / g["gbs"] * 1000, g["comp_ms"])
    ),
    "pbt-exploiting-trials": lambda g: min(
        next(k for k in range(0, 100) if 100 * k >= g["n"] * g["q_pct"]), g["n"] // 2
    ),
    "h100-learner-samples-per-second": _h100_samples,
    "cpu-nodes-to-feed-h100s": _cpu_nodes,
    "observation-bandwidth-share": _link_share,
    "rl-run-cost": _run_cost,
    "h2d-copy-share-of-step": _copy_share,
}


def test_at_least_twelve_drills_ship_and_each_has_a_reference_here():
    assert len(DOCS) >= 12
    assert set(DOCS) == set(REFERENCE)


@settings(max_examples=60)
@given(seed=st.integers(0, 2**31 - 1), salt=st.text(min_size=1, max_size=12))
@pytest.mark.parametrize("slug", sorted(REFERENCE))
def test_drawn_numbers_stay_on_their_grid_and_the_key_is_the_worked_answer(slug, seed, salt):
    doc = DOCS[slug]
    drill = drills.sizing_drill(**doc.sizing)
    draw = drill.draw(seed, salt)
    assert draw == drill.draw(seed, salt)  # a reload shows the same numbers
    for raw in doc.sizing["given"]:
        value = draw.given[raw["name"]]
        step = raw.get("step", 1)
        assert raw["min"] <= value <= raw["max"]
        assert math.isclose((value - raw["min"]) / step, round((value - raw["min"]) / step))
    expected = REFERENCE[slug](draw.given)
    assert math.isfinite(draw.answer) and draw.answer > 0
    tolerance = drill.tolerance
    assert scoring.within_tolerance(expected, draw.answer, tolerance), (draw, expected)
    if tolerance:  # an answer just outside the tolerance is refused
        assert not scoring.within_tolerance(
            draw.answer * (1 + 2 * tolerance), draw.answer, tolerance
        )
    else:
        assert expected == draw.answer
    # The texts the learner reads show numbers, never a placeholder left unfilled.
    assert not drills.placeholders(drills.fill(doc.prompt, draw.given))
    assert not drills.placeholders(drills.fill(doc.solution, draw.numbers))


@pytest.mark.parametrize("slug", sorted(REFERENCE))
def test_the_numbers_change_between_attempts(slug):
    drill = drills.sizing_drill(**DOCS[slug].sizing)
    answers = {drill.draw(seed, "key").answer for seed in range(30)}
    assert len(answers) >= 5


def test_at_least_ten_debugging_drills_ship_each_with_real_output_and_its_source():
    quizzes = read_yaml((FIXTURES / "quizzes" / "distributed-rl-on-ray.yaml").read_text(), "q")
    drills_shipped = [
        question
        for quiz in quizzes["quizzes"]
        for question in quiz["questions"]
        if question.get("evidence")
    ]
    assert len(drills_shipped) >= 10
    tools = {question["evidence"]["tool"].split(",")[0] for question in drills_shipped}
    assert len(tools) >= 6  # ray status, ray memory, metrics, the State API, py-spy, RLlib...
    for question in drills_shipped:
        evidence = question["evidence"]
        assert evidence["output"].strip() and evidence["source"].strip(), question["slug"]
