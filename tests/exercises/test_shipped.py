"""Every shipped exercise, in the real sandbox: its reference passes every test and each of its
wrong solutions fails one. `manage.py seed` loads them as accepted on the strength of this test.
Two runs at a time (the machine has two cores), each with the learners' own limits: those of
its runtime, so the exercises that declare `runtime: ray` start a real local Ray each run."""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from apps.exercises import grading, sandbox
from apps.exercises.content import exercise_file_parse
from apps.exercises.limits import run_limits
from tests.exercises.conftest import needs_bwrap

FILE = Path(__file__).resolve().parents[2] / "fixtures" / "exercises" / "distributed-rl-on-ray.yaml"
DECK = Path(__file__).resolve().parents[2] / "fixtures" / "decks" / "distributed-rl-on-ray.yaml"


def shipped():
    deck = yaml.safe_load(DECK.read_text())
    names = set()
    for section in deck["sections"]:
        for card in section["cards"]:
            names.add(card["slug"])
            kind = card.get("kind", "basic")
            if kind == "reverse":
                names.add(f"{card['slug']}-reverse")
            if kind == "cloze":
                names.update(f"{card['slug']}-c{n}" for n in range(1, 10))
    sections = {s["slug"] for s in deck["sections"]}
    known = lambda slug: (names, sections) if slug == deck["slug"] else None  # noqa: E731
    return exercise_file_parse(yaml.safe_load(FILE.read_text()), FILE.name, names_of=known)


def test_the_file_is_valid_and_holds_twenty_exercises_at_interview_depth():
    doc = shipped()
    assert len(doc.exercises) >= 20
    assert sum(e.runtime == "ray" for e in doc.exercises) >= 5  # Ray and RLlib for real
    for exercise in doc.exercises:
        assert exercise.source and exercise.cards and exercise.wrong, exercise.slug
        assert len(grading.test_names(exercise.tests)) >= 3, f"{exercise.slug}: too few tests"


def check_in_the_sandbox(exercises) -> list[str]:
    """Run every reference and wrong solution, two at a time; what went wrong, as sentences."""
    jobs = []
    for exercise in exercises:
        suites = [grading.Suite("hidden", exercise.tests, visible=True)]
        if exercise.examples:
            suites.insert(0, grading.Suite("examples", exercise.examples, visible=True))
        limits = run_limits(exercise.runtime)
        jobs.append((exercise.slug, "reference", exercise.reference, suites, limits))
        jobs += [(exercise.slug, w["mistake"], w["code"], suites, limits) for w in exercise.wrong]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda job: sandbox.run(job[2], job[3], job[4]), jobs))
    problems = []
    for (slug, what, _, _, _), outcome in zip(jobs, outcomes, strict=True):
        if what == "reference" and not outcome.passed:
            failed = [f"{t.name}: {t.message}" for t in outcome.tests if not t.passed]
            problems.append(f"{slug}: the reference fails: {outcome.problem} {failed[:2]}")
        if what != "reference" and outcome.status != "failed":
            problems.append(f"{slug}: the wrong solution '{what}' does not fail ({outcome.status})")
    return problems


@needs_bwrap
def test_every_reference_passes_and_every_wrong_solution_fails():
    problems = check_in_the_sandbox(e for e in shipped().exercises if e.runtime != "ray")
    assert not problems, "\n".join(problems)


@needs_bwrap
def test_the_exercises_on_ray_and_rllib_pass_and_fail_as_they_should():
    """Each run starts a local Ray or imports torch and RLlib: most of this file's time."""
    problems = check_in_the_sandbox(e for e in shipped().exercises if e.runtime == "ray")
    assert not problems, "\n".join(problems)
