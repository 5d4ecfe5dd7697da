"""Settings, split by purpose: base (shared), dev (make run), test (pytest), prod (deployments)."""
