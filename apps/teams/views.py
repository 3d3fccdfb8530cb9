"""Team pages: thin views over `selectors` and `services`.

Access: anonymous visitors are sent to log in; a stranger gets a 404 for any team page, so team
slugs do not leak; a member who is not an owner gets a 403 with a sentence saying why.
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from apps.study.progress import FORMULAS
from apps.teams import selectors, services
from apps.teams.forms import InviteForm, TeamDeleteForm, TeamForm
from apps.teams.models import Invite, Membership
from config import csv_safety
from config.http import AuthenticatedHtmxHttpRequest, AuthenticatedHttpRequest


def owner_required(action: str):
    """Log-in required; strangers 404; members who are not owners get a 403 page saying why.
    The view receives the owner's membership instead of the slug."""

    def decorate(view):
        @login_required
        @wraps(view)
        def wrapper(request: AuthenticatedHttpRequest, slug: str, *args, **kwargs) -> HttpResponse:
            membership = selectors.membership_for(request.user, slug)
            if not membership.is_owner:
                message = f"Only an owner of {membership.team.name} can {action}."
                context = {"team": membership.team, "message": message}
                return render(request, "teams/forbidden.html", context, status=403)
            return view(request, membership, *args, **kwargs)

        return wrapper

    return decorate


@login_required
def index(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = TeamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            team = services.team_create(
                user=request.user, name=form.cleaned_data["name"], deck=form.cleaned_data["deck"]
            )
        except services.TeamError as error:
            form.add_error("name", str(error))
        else:
            messages.success(request, f"{team.name} is ready. Invite people from Manage.")
            return redirect(team)
    memberships = list(selectors.teams_of(request.user))
    status = 400 if form.errors else 200
    return render(
        request, "teams/index.html", {"memberships": memberships, "form": form}, status=status
    )


@login_required
def dashboard(request: AuthenticatedHtmxHttpRequest, slug: str) -> HttpResponse:
    membership = selectors.membership_for(request.user, slug)
    progress = selectors.team_progress(membership.team, viewer_id=request.user.pk)
    visible = progress.visible_rows(request.user.pk)
    rows, sort = selectors.sort_rows(visible, request.GET.get("sort"))
    context = {
        "team": membership.team,
        "membership": membership,
        "progress": progress,
        "averages": progress.averages_for(request.user.pk),
        "rows": rows,
        "interview_rows": [m for m in rows if m.interview_date is not None],
        "sort": sort,
        "sort_columns": SORT_COLUMNS,
        "cache_seconds": selectors.progress_cache_seconds(),
        "formulas": FORMULAS,
    }
    template = "teams/dashboard.html"
    if request.htmx and request.htmx.target == "member-table":
        template += "#member-table"
    return render(request, template, context)


SORT_COLUMNS = [
    ("username", "Member"),
    ("readiness", "Readiness"),
    ("mastery", "Mastery"),
    ("learned", "Cards learned"),
    ("due", "Due now"),
    ("reviews_7d", "Reviews 7\u00a0d"),
    ("reviews_30d", "Reviews 30\u00a0d"),
    ("retention", "Retention"),
    ("streak", "Streak"),
    ("knowledge", "Knowledge check"),
    ("exercises", "Exercises"),
    ("own", "Own cards"),
    ("last_active", "Last active"),
]


def _percent(value: float | None) -> str:
    return "" if value is None else f"{round(100 * value)}"


@login_required
def export_csv(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The dashboard's figures as CSV: one row per visible member, then the team average over
    every member (hidden ones included). Shares are whole percentages."""
    membership = selectors.membership_for(request.user, slug)
    progress = selectors.team_progress(membership.team, viewer_id=request.user.pk)
    rows, _ = selectors.sort_rows(progress.visible_rows(request.user.pk), request.GET.get("sort"))
    stamp = timezone.localtime(progress.now).strftime("%Y-%m-%d")
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{membership.team.slug}-progress-{stamp}.csv"'
    )
    writer = csv_safety.writer(response)
    writer.writerow(
        [
            "username", "role", "readiness_pct", "mastery_pct", "cards_learned", "due_now",
            "reviews_7d", "reviews_30d", "retention_pct", "streak_days", "knowledge_check_pct",
            "exercises_passed", "own_cards", "last_active",
            *[f"mastery_pct:{f.section.slug}" for f in progress.sections],
            *[f"best_pct:{q.slug}" for q in progress.knowledge_checks],
            "interview_date", "interview_recall_pct",
        ]
    )  # fmt: skip
    for m in rows:
        writer.writerow(
            [
                m.username, m.role, _percent(m.readiness), _percent(m.mastery_overall),
                m.cards_learned, m.due_backlog, m.reviews_7d, m.reviews_30d,
                _percent(m.retention), m.streak_days, _percent(m.knowledge),
                m.exercises_passed, m.own_cards,
                m.last_active.isoformat() if m.last_active else "",
                *[_percent(m.mastery[f.section.pk]) for f in progress.sections],
                *[_percent(m.knowledge_checks.get(q.pk)) for q in progress.knowledge_checks],
                m.interview_date.isoformat() if m.interview_date else "",
                _percent(m.interview_recall),
            ]
        )  # fmt: skip
    if progress.deck is not None:
        avg = progress.averages_for(request.user.pk)
        writer.writerow(
            [
                avg.label, "",
                _percent(avg.readiness), _percent(avg.mastery_overall),
                f"{avg.cards_learned:.1f}", f"{avg.due_backlog:.1f}", f"{avg.reviews_7d:.1f}",
                f"{avg.reviews_30d:.1f}", _percent(avg.retention), f"{avg.streak_days:.1f}",
                _percent(avg.knowledge), f"{avg.exercises_passed:.1f}", "", "",
                *[_percent(share) for _, share, _ in avg.cells],
                *["" for _ in progress.knowledge_checks],
                "", "",
            ]
        )  # fmt: skip
    return response


@owner_required("manage its members and invites")
def manage(request: AuthenticatedHttpRequest, membership: Membership) -> HttpResponse:
    team = membership.team
    form = InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            invite = services.invite_create(team=team, by=request.user, **form.invite_arguments())
        except services.TeamError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, "Invite link created: copy it and send it to whoever joins.")
            return redirect(reverse("teams:manage", args=[team.slug]) + f"#invite-{invite.pk}")
    now = timezone.now()
    invites = list(selectors.team_invites(team))
    for invite in invites:
        invite.url = request.build_absolute_uri(invite.get_absolute_url())
        invite.is_active = invite.refusal(now) is None
    context = {
        "team": team,
        "membership": membership,
        "members": selectors.team_members(team),
        "invites": invites,
        "form": form,
    }
    return render(request, "teams/manage.html", context, status=400 if form.errors else 200)


@owner_required("revoke invites")
@require_POST
def invite_revoke(
    request: AuthenticatedHttpRequest, membership: Membership, invite_id: int
) -> HttpResponse:
    slug = membership.team.slug
    invite = get_object_or_404(Invite, pk=invite_id, team=membership.team)
    services.invite_revoke(invite=invite, by=request.user)
    messages.success(request, "Invite revoked: the link no longer works.")
    return redirect("teams:manage", slug)


@owner_required("remove members")
@require_POST
def member_remove(
    request: AuthenticatedHttpRequest, membership: Membership, user_id: int
) -> HttpResponse:
    slug = membership.team.slug
    target = get_object_or_404(Membership, team=membership.team, user_id=user_id)
    services.member_remove(team=membership.team, by=request.user, user=target.user)
    if target.user_id == request.user.pk:
        messages.success(request, f"You left {membership.team.name}.")
        return redirect("teams:index")
    messages.success(request, f"{target.user.username} was removed from {membership.team.name}.")
    return redirect("teams:manage", slug)


@owner_required("hand over ownership")
@require_POST
def ownership_transfer(
    request: AuthenticatedHttpRequest, membership: Membership, user_id: int
) -> HttpResponse:
    target = get_object_or_404(Membership, team=membership.team, user_id=user_id)
    services.ownership_transfer(team=membership.team, by=request.user, to=target.user)
    messages.success(request, f"{target.user.username} now owns {membership.team.name}.")
    return redirect(membership.team)


@owner_required("delete it")
@require_POST
def team_delete(request: AuthenticatedHttpRequest, membership: Membership) -> HttpResponse:
    form = TeamDeleteForm(request.POST, team=membership.team)
    if not form.is_valid():
        raise services.TeamError(str(form.errors["confirm"][0]), field="confirm")
    services.team_delete(team=membership.team, by=request.user)
    messages.success(request, f"{membership.team.name} was deleted.")
    return redirect("teams:index")


@login_required
@require_POST
def leave(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    membership = selectors.membership_for(request.user, slug)
    services.team_leave(team=membership.team, user=request.user)
    messages.success(request, f"You left {membership.team.name}.")
    return redirect("teams:index")


@login_required
@require_POST
def privacy(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    membership = selectors.membership_for(request.user, slug)
    hidden = request.POST.get("hidden") == "on"
    services.membership_set_hidden(team=membership.team, user=request.user, hidden=hidden)
    if hidden:
        messages.success(request, "Your details are hidden: the team sees you in averages only.")
    else:
        messages.success(request, "Your row is visible to the team again.")
    return redirect(membership.team)


@login_required
def join(request: AuthenticatedHttpRequest, token: str) -> HttpResponse:
    """The page an invite link opens: the team and a Join button (POST joins)."""
    invite = selectors.invite_for_token(token)
    refusal = None
    if invite is None:
        refusal = "This invite link is not valid. Ask a team owner for a new one."
    else:
        if Membership.objects.filter(team=invite.team, user=request.user).exists():
            messages.info(request, f"You are already a member of {invite.team.name}.")
            return redirect(invite.team)
        refusal = invite.refusal()
        if refusal is None and invite.redemptions.filter(user=request.user).exists():
            refusal = services.used_before_message(invite.team)
    if request.method == "POST" and refusal is None:
        try:
            membership = services.team_join(user=request.user, token=token)
        except services.TeamError as error:
            refusal = str(error)
        else:
            messages.success(request, f"Welcome to {membership.team.name}.")
            return redirect(membership.team)
    context = {
        "invite": invite,
        "refusal": refusal,
        "member_count": invite.team.memberships.count() if invite else 0,
        "owners": get_user_model()
        .objects.filter(
            team_memberships__team=invite.team, team_memberships__role=Membership.Role.OWNER
        )
        .values_list("username", flat=True)
        if invite
        else [],
    }
    return render(request, "teams/join.html", context, status=200 if refusal is None else 410)
