"""SQLite as the embedded default uses it: Django's backend, with writers waiting in line for
one write lock (see .base)."""
