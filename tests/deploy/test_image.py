"""deploy/Dockerfile: what the manifests rely on from the image, and no secrets baked into it."""

import re

from .conftest import DEPLOY

DOCKERFILE = (DEPLOY / "Dockerfile").read_text()


def test_the_image_runs_as_a_numeric_non_root_user():
    # runAsNonRoot in the manifests can only be verified for a numeric USER.
    [user] = re.findall(r"^USER (\S+)$", DOCKERFILE, re.MULTILINE)
    assert user.isdigit() and int(user) > 0


def test_the_image_has_wget_for_kuberays_default_ray_probes():
    assert re.search(r"apt-get install .*\bwget\b", DOCKERFILE)


def test_env_files_never_enter_the_image():
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    assert "**/.env" in ignored and "**/.env.*" in ignored
    assert ".git" in ignored and ".venv" in ignored


def test_the_image_has_the_extras_make_install_has():
    # Without rllib production silently loses the RLlib demo; the learners' own memory fits are
    # fsrs-rs-python's, a plain dependency (the bench extra is the benches' py-fsrs only).
    [extras] = re.findall(r"^ARG EXTRAS=(\S+)$", DOCKERFILE, re.MULTILINE)
    assert set(extras.split(",")) == {"rllib"}
    assert '".[${EXTRAS}]"' in DOCKERFILE
    makefile = (DEPLOY.parent / "Makefile").read_text()
    assert "-e '.[dev,rllib,bench]'" in makefile
    # torch is pinned to its CPU build, found only on PyTorch's CPU index
    assert "download.pytorch.org/whl/cpu" in DOCKERFILE
