"""Log records as one line of key=value pairs. OtterWeb's own messages are already pairs
(`execution=12 worker=host:42 message='started'`); anyone else's becomes `message='...'`."""

from __future__ import annotations

import logging
import re

PAIRS = re.compile(r"[a-z_]+=\S")


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        body = text if PAIRS.match(text) else f"message={text!r}"
        line = (
            f"time={self.formatTime(record)} level={record.levelname} logger={record.name} {body}"
        )
        if record.exc_info:
            line += f" traceback={self.formatException(record.exc_info)!r}"
        return line
