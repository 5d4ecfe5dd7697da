"""Where collectstatic writes the static files: ServeStatic's storage (hashed names from Django's
manifest, and gzip and brotli copies served to browsers that take them), each content
compressed once."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections import defaultdict
from collections.abc import Iterator

from servestatic.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Most files are kept twice, under their own name and their hashed name (a script that
    Vite built imports its chunks by their own names), with the same bytes. Brotli at its best
    takes 1.5 s a megabyte, so each content is compressed once and its twins get copies."""

    def compress_files(self, paths: set[str]) -> Iterator[tuple[str, str]]:
        first_of: dict[bytes, str] = {}
        twins: dict[str, list[str]] = defaultdict(list)
        for path in sorted(paths):
            with open(self.path(path), "rb") as file:
                digest = hashlib.file_digest(file, "blake2b").digest()
            first = first_of.setdefault(digest, path)
            if first != path:
                twins[first].append(path)
        for path, compressed in super().compress_files(set(first_of.values())):
            yield path, compressed
            suffix = compressed.removeprefix(path)
            for twin in twins[path]:
                shutil.copyfile(self.path(compressed), self.path(twin + suffix))
                twin_stat = os.stat(self.path(twin))
                os.utime(self.path(twin + suffix), (twin_stat.st_atime, twin_stat.st_mtime))
                yield twin, twin + suffix
