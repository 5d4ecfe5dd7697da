"""SQLite for the tests (otterweb/settings/test.py): the product's backend (otterweb.sqlite3), but a
test that empties the database (a transactional one) keeps the content types and permissions,
which the post_migrate signal then finds made instead of making them again as they were (a
transactional test's teardown: 0.08 s instead of 0.10 on this machine). tests/postgresql does
the same on PostgreSQL."""

from otterweb.sqlite3 import base
from tests.postgresql.base import KEPT


class DatabaseOperations(base.DatabaseWrapper.ops_class):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        kept = [table for table in tables if table not in KEPT]
        return super().sql_flush(
            style, kept, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
