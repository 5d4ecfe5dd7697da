"""Pages under /configuration/."""

urlpatterns: list = []
