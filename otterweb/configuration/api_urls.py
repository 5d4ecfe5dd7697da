"""API routes of the configuration app, under /api/."""

urlpatterns: list = []
