"""API routes of the schedules app, under /api/."""

urlpatterns: list = []
