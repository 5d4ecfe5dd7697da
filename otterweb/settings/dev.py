"""`make run`: the embedded default on one machine, nothing else to install."""

from otterweb.settings.base import *  # noqa: F403
from otterweb.settings.base import DATA_DIR, SECRET_KEY

DEBUG = True
# A development key is fine here: `make run` binds to 127.0.0.1 only.
SECRET_KEY = SECRET_KEY or "otterweb-development-only-key-not-for-production"
DATA_DIR.mkdir(parents=True, exist_ok=True)

# Development only: a fixed key, so secrets saved by `make run` stay readable between runs.
ENCRYPTION_KEY = "b3R0ZXJ3ZWItZGV2ZWxvcG1lbnQta2V5LTMyLWJ5dGU="
