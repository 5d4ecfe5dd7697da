from __future__ import annotations

from typing import TYPE_CHECKING

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from otterweb.executions.dispatch import Dispatcher


class ExecutionsConfig(AppConfig):
    name = "otterweb.executions"
    verbose_name = "Jobs and executions"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from otterweb.execution_logs import hooks as logs
        from otterweb.executions import dispatch, selectors, views
        from otterweb.executions.models import Execution
        from otterweb.executions.places import register_places
        from otterweb.inventory.views import SERVER_PAGE_PARTS
        from otterweb.rafts import selectors as rafts
        from otterweb.rafts.views import ITEM_PAGE_PARTS

        register_places()
        SERVER_PAGE_PARTS.append(views.server_page)  # a server's recent executions
        ITEM_PAGE_PARTS.append(views.item_page)  # a raft item's Run
        rafts.JOB_TEMPLATES_OF.append(selectors.job_templates_running)  # an item in use
        # the logs (otterweb.execution_logs) know executions by id alone: who may see one, its
        # state and its counts come from here, and a deleted execution takes its log along
        logs.register(
            may_view=selectors.may_view_executions,
            find=selectors.visible_execution,
            count=Execution.count_log,
        )
        post_delete.connect(
            _delete_log, sender=Execution, dispatch_uid="otterweb.executions.execution_log"
        )
        checks.register(distributed_settings, checks.Tags.compatibility)
        # Where the executions made in this process go, chosen once; the processes that run
        # them (`manage.py serve`, Celery workers) start it.
        dispatch.use(dispatcher_from_settings())


def _delete_log(sender, instance, **kwargs) -> None:
    from otterweb.execution_logs.services import delete_log

    delete_log(execution_id=instance.pk)


def dispatcher_from_settings() -> Dispatcher:
    """The dispatcher OTTERWEB_DISPATCH names: "embedded", "celery" or "none"."""
    # they import the models: loaded only once the apps are
    from otterweb.executions import dispatch, workers

    mode = settings.OTTERWEB_DISPATCH
    if mode == "embedded":
        return workers.WorkerProcesses(settings.OTTERWEB_WORKERS)
    if mode == "celery":
        return dispatch.CeleryQueue()
    if mode == "none":
        return dispatch.Dispatcher()
    raise ImproperlyConfigured(f"OTTERWEB_DISPATCH is embedded, celery or none, not {mode!r}")


def distributed_settings(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    return distributed_problems(settings.REDIS_URL, settings.DATABASES["default"]["ENGINE"])


def distributed_problems(redis_url: str, database_engine: str) -> list[checks.CheckMessage]:
    """Celery workers on other machines cannot share the embedded SQLite file."""
    if redis_url and database_engine.endswith("sqlite3"):
        return [
            checks.Warning(
                "OTTERWEB_REDIS_URL is set but OTTERWEB_DATABASE_URL is not: Celery workers will "
                "use the SQLite file of this machine, which workers on other machines cannot reach.",
                hint="Set OTTERWEB_DATABASE_URL to a postgres:// URL shared by every web server "
                "and worker.",
                id="otterweb.W001",
            )
        ]
    return []
