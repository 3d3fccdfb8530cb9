"""Writes for demo runs from the web side: queue one (validated, limited) and cancel one. The
worker side (executing a run, reaping) is apps.demos.worker; Ray is never imported here."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from apps.demos.models import DemoRun
from apps.demos.ray_demos import ParamError, get_demo, missing_extras, validate_params
from config.errors import ServiceError
from config.tasks import enqueue_on_commit

Status = DemoRun.Status
EXECUTE_TASK = "demos.execute_run"  # apps.demos.tasks, on the demos queue


class RunRefused(ServiceError):
    """A run not queued, and why. The demo page shows `errors` on its fields ("__all__": above
    the form); the API's "error" is the sentence itself, not prefixed with the field's name."""

    @property
    def errors(self) -> dict[str, str]:
        return {"__all__": self.message}

    @property
    def detail(self):
        detail = super().detail
        return {**detail, "error": self.message} if isinstance(detail, dict) else detail


class BadParams(RunRefused):
    """Parameters refused, one message per parameter (the pure core's ParamError, converted
    at this boundary so the core stays free of Django)."""

    def __init__(self, errors: dict[str, str]):
        super().__init__(str(ParamError(errors)), field="params")
        self.params = errors

    @property
    def errors(self) -> dict[str, str]:
        return self.params

    @property
    def detail(self):
        return {"params": self.params, "error": self.message}


class TooManyRuns(RunRefused):
    status = 429
    title = "Too many runs"


@transaction.atomic
def demo_run_create(*, user, demo: str, params: dict | None) -> DemoRun:
    """Validate and queue a run; the task is sent only once the row is committed."""
    spec = get_demo(demo)
    if spec is None:
        raise BadParams({"demo": f"unknown demo {demo!r}"})
    missing = missing_extras(spec)
    if missing:
        raise RunRefused(
            f"{spec.title} needs the rllib extra, not installed on this server "
            f"({', '.join(missing)} missing)",
            field="demo",
        )
    try:
        cleaned = validate_params(spec, params)
    except ParamError as exc:
        raise BadParams(exc.errors) from None
    _check_nodes(spec, cleaned)
    limit = settings.DEMOS_MAX_ACTIVE_RUNS_PER_USER
    # Lock the user's row so two quick clicks cannot both pass the limit.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    active = DemoRun.objects.filter(user=user, status__in=DemoRun.ACTIVE).count()
    if active >= limit:
        raise TooManyRuns(
            f"You already have {active} demo runs queued or running (at most {limit}); "
            "wait for one to finish or cancel it."
        )
    run = DemoRun.objects.create(user=user, demo=spec.slug, params=cleaned)
    enqueue_on_commit(
        EXECUTE_TASK, (run.pk,), queue="demos", soft_time_limit=run.soft_limit_s,
        time_limit=run.hard_limit_s, on_broker_error=lambda reason: _unsent_fail(run, reason),
    )  # fmt: skip
    return run


def _check_nodes(spec, cleaned: dict) -> None:
    """Refuse params that ask for more Ray nodes than the multi-node cluster the demos worker
    last ran on (the web never connects to Ray). On one node the demo runs and says so."""
    needed = spec.nodes_needed(cleaned)
    if needed <= 1:
        return
    seen = (
        DemoRun.objects.filter(cluster_nodes__isnull=False)
        .order_by("-id")
        .values_list("cluster_nodes", "started_at")
        .first()
    )
    if seen and 2 <= (seen[0] or 0) < needed:  # (never None: the filter)
        nodes, at = seen
        when = f" (seen {timezone.localtime(at):%Y-%m-%d %H:%M})" if at else ""
        raise BadParams(
            {
                spec.nodes_param: f"{spec.nodes_param} asks for {needed} Ray nodes, and the "
                f"cluster the demos worker last ran on has {nodes}{when}: lower it, or add nodes"
            }
        )


def _unsent_fail(run: DemoRun, reason: str) -> None:
    """The broker did not take the run. The row is committed: left queued, it would wait 15
    minutes for the reaper and count against the person's limit. Say what happened instead."""
    now = timezone.now()
    error = f"Could not hand this run to the demos worker: {reason}"
    DemoRun.objects.filter(pk=run.pk, status=Status.QUEUED).update(
        status=Status.FAILED, finished_at=now, error=error
    )
    run.status, run.finished_at, run.error = Status.FAILED, now, error


def demo_run_cancel(*, run: DemoRun) -> DemoRun:
    """A queued run is cancelled at once; a running one is asked to stop (within ~1 s)."""
    now = timezone.now()
    if DemoRun.objects.filter(pk=run.pk, status=Status.QUEUED).update(
        status=Status.CANCELLED, finished_at=now, error="cancelled before it started"
    ):
        pass
    else:
        DemoRun.objects.filter(pk=run.pk, status=Status.RUNNING).update(cancel_requested=True)
    run.refresh_from_db()
    return run
