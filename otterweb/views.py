from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpResponseServerError
from django.shortcuts import redirect, render
from django.template import loader
from django.templatetags.static import static
from django.urls import reverse
from django.utils.http import urlencode
from django.views.generic import TemplateView

from otterweb.api.error_body import error_response
from otterweb.configuration import selectors as configuration
from otterweb.configuration.models import State
from otterweb.executions import selectors
from otterweb.executions.views import execution_row, failed_url


class HomeView(LoginRequiredMixin, TemplateView):
    """The dashboard: what runs now and what ran last (kept live by
    frontend/src/dashboard/activity.ts), what failed in the last day, what the inventory holds,
    and the daily actions; what to do first on a new installation. A fixed number of queries
    whatever the data."""

    template_name = "home.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        user = self.request.user
        context["counts"] = selectors.counts(user=user)
        if user.has_perm("executions.view_execution"):
            activity = selectors.activity(user=user)
            context.update(
                panels=[
                    {
                        "key": "running",
                        "title": "Running now",
                        "when": "started",
                        "empty": "Nothing is running.",
                        "rows": [execution_row(execution) for execution in activity.running],
                    },
                    {
                        "key": "recent",
                        "title": "Recently ended",
                        "when": "duration",
                        "empty": "No execution has ended yet.",
                        "rows": [execution_row(execution) for execution in activity.recent],
                    },
                ],
                failed=activity.failed,
                failed_url=failed_url(activity.failed_since),
            )
        if user.has_perm("inventory.view_server"):
            context.update(configuration_glance(user))
        return context


BAR_WIDTH, BAR_GAP, CHART_HEIGHT = 7, 2, 26  # the drift charts' bars, in px


def configuration_glance(user) -> dict:
    """The dashboard's configuration panel: servers by state in each environment (rolled up as
    the Configuration page does), each with a chart of the servers found drifted each of the
    last 14 days; and the servers their last check could not reach."""
    glance = configuration.matrix(user=user, limit=0)
    history = configuration.drift_history(user=user)
    tallest = max([1, *history.overall])
    span = f"{history.days[0]:%b %-d} to {history.days[-1]:%b %-d}"

    def page(**query: str) -> str:
        return reverse("configuration") + (f"?{urlencode(query)}" if query else "")

    def row(rollup, counts: list[int], environment: str = "") -> dict:
        scope = {"environment": environment} if environment else {}
        bars = []
        for n, (day, count) in enumerate(zip(history.days, counts, strict=True)):
            # a day with none: a line at the bottom
            height = max(1, round(CHART_HEIGHT * count / tallest)) if count else 1
            bars.append(
                {
                    "x": n * (BAR_WIDTH + BAR_GAP),
                    "y": CHART_HEIGHT - height,
                    "height": height,
                    "none": not count,
                    "title": f"{day:%a %b %-d}: {count} server{'s' if count != 1 else ''} drifted",
                }
            )
        return {
            "name": rollup.name,
            "url": page(**scope),
            "drifted_url": page(**scope, state="drifted"),
            "counts": {str(state): rollup.counts.get(state, 0) for state in State},
            "total": rollup.total,
            "bars": bars,
            "chart_label": f"Servers drifted each day, {span}: " + ", ".join(map(str, counts)),
        }

    rows = [row(glance.overall, history.overall)]
    rows += [
        row(rollup, history.by_environment.get(rollup.name, [0] * len(history.days)), rollup.name)
        for rollup in glance.by_environment
    ]
    unreachable, unreachable_count = configuration.unreachable_servers(user=user)
    return {
        "glance_rows": rows,
        "chart_width": len(history.days) * (BAR_WIDTH + BAR_GAP) - BAR_GAP,
        "chart_height": CHART_HEIGHT,
        "bar_width": BAR_WIDTH,
        "chart_span": span,
        "unreachable": unreachable,
        "unreachable_count": unreachable_count,
    }


# The product's error pages: what happened and where to go, in the site's look; never a
# traceback or the list of URLs (DEBUG is off outside the development settings).
ERRORS = {
    400: (
        "Bad request",
        "The request could not be understood. Check the address and what was sent, then try again.",
    ),
    403: (
        "Not allowed",
        "You do not have permission to open this page. Ask an administrator for access if you need it.",
    ),
    404: (
        "Page not found",
        "There is nothing at this address. It may have been renamed or deleted.",
    ),
    500: (
        "Something went wrong",
        "OtterWeb could not complete the request. The error has been logged; try again, and tell your administrator if it keeps happening.",
    ),
}


# The API's one error body (otterweb.api.errors) for addresses under /api/ that no view answers
API_CODES = {400: "invalid", 403: "permission_denied", 404: "not_found"}


def error_page(request, code: int):
    heading, explanation = ERRORS[code]
    if request.path.startswith("/api/"):
        return error_response(code, explanation, API_CODES[code])
    context = {"code": code, "heading": heading, "explanation": explanation}
    return render(request, "error.html", context, status=code)


def bad_request(request, exception=None):
    return error_page(request, 400)


def permission_denied(request, exception=None):
    return error_page(request, 403)


def page_not_found(request, exception=None):
    return error_page(request, 404)


def server_error(request):
    """Rendered without the request's context: what failed may be the database that the
    user and the navigation come from."""
    heading, explanation = ERRORS[500]
    context = {"code": 500, "heading": heading, "explanation": explanation}
    return HttpResponseServerError(loader.get_template("error.html").render(context))


def favicon(request):
    """Browsers ask for /favicon.ico on pages that are not HTML (JSON, a download)."""
    return redirect(static("otterweb/otter.svg"), permanent=True)
