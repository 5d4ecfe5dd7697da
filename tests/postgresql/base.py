"""PostgreSQL for the tests (otterweb/settings/test.py): Django's backend, but a test that empties
the database (a transactional one) deletes every table's rows instead of truncating the tables,
and keeps the content types and permissions, which the post_migrate signal would make again as
they were. TRUNCATE gives each table and index a new file: with the permissions made again,
0.37 s on this machine, paid by every transactional test; this takes 0.075 s. Django's foreign
keys on PostgreSQL are checked at the commit (DEFERRABLE INITIALLY DEFERRED), so the order of
the deletes does not matter."""

from django.db.backends.postgresql import base, operations

# Made again after every flush by the post_migrate signal as they were: kept instead.
KEPT = {"django_content_type", "auth_permission"}


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        tables = [table for table in tables if table not in KEPT]
        if reset_sequences or not tables:
            return super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        return ["SET CONSTRAINTS ALL DEFERRED;"] + [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};"
            for table in tables
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
