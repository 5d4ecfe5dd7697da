from django.urls import include, path
from rest_framework.routers import DefaultRouter

from otterweb.accounts import api as accounts
from otterweb.api.docs import DocsView, SchemaView
from otterweb.audit import api as audit
from otterweb.editor import api as editor
from otterweb.executions import api as executions
from otterweb.inventory import api as inventory
from otterweb.rafts import api as rafts

app_name = "api"

router = DefaultRouter()
router.register("environments", inventory.EnvironmentViewSet)
router.register("roles", inventory.RoleViewSet)
router.register("servers", inventory.ServerViewSet)
router.register("variables", inventory.VariableViewSet)
router.register("credentials", inventory.CredentialViewSet)
router.register("rafts", rafts.RaftViewSet)
router.register("raft-items", rafts.RaftItemViewSet)
router.register("raft-item-versions", rafts.RaftItemVersionViewSet)
router.register("job-templates", executions.JobTemplateViewSet)
router.register("jobs", executions.JobViewSet)
router.register("executions", executions.ExecutionViewSet)
router.register("audit", audit.EntryViewSet, basename="audit")

urlpatterns = [
    path("scripts/check/", editor.CheckView.as_view(), name="script-check"),
    path("scripts/format/", editor.FormatView.as_view(), name="script-format"),
    path("scripts/blocks/", editor.BlocksView.as_view(), name="script-blocks"),
    path("scripts/unblocks/", editor.UnblocksView.as_view(), name="script-unblocks"),
    path("scripts/names/", editor.NamesView.as_view(), name="script-names"),
    path("reference/", editor.ReferenceView.as_view(), name="reference"),
    path("keys/", accounts.ApiKeyListView.as_view(), name="key-list"),
    path("keys/<int:pk>/", accounts.ApiKeyDetailView.as_view(), name="key-detail"),
    path("schema/", SchemaView.as_view(), name="schema"),
    path("docs/", DocsView.as_view(url_name="api:schema"), name="api-docs"),
    path("", include("otterweb.configuration.api_urls")),
    path("", include("otterweb.schedules.api_urls")),
    path("", include(router.urls)),
]
