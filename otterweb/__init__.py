"""OtterWeb: the Django project around the OtterScript engine."""
