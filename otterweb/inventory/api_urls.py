"""API routes of the inventory app, under /api/: environments, roles, servers (and their
packages), variables, credentials, and the packages search."""

from rest_framework.routers import SimpleRouter

from otterweb.inventory import api

router = SimpleRouter()
router.register("environments", api.EnvironmentViewSet)
router.register("roles", api.RoleViewSet)
router.register("servers", api.ServerViewSet)
router.register("variables", api.VariableViewSet)
router.register("credentials", api.CredentialViewSet)
router.register("packages", api.PackageViewSet, basename="package")
