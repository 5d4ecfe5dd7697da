"""API routes of the executions app, under /api/: job templates, jobs and executions (their
logs' routes: otterweb.execution_logs.api_urls)."""

from rest_framework.routers import SimpleRouter

from otterweb.executions import api

router = SimpleRouter()
router.register("job-templates", api.JobTemplateViewSet)
router.register("jobs", api.JobViewSet)
router.register("executions", api.ExecutionViewSet)
