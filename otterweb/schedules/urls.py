"""Pages under /schedules/."""

urlpatterns: list = []
