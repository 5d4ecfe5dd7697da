"""Git's smart HTTP protocol on 127.0.0.1 for the tests: `git http-backend` behind a small
threaded HTTP server that asks for a user name and password (HTTP Basic), as a hosted git server
asks for a token. Serves every bare repository under a folder, read and write."""

from __future__ import annotations

import base64
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

BACKEND = ["git", "http-backend"]


class GitHttp:
    """``with GitHttp(folder, user, password) as server:`` then clone ``server.url(name)``."""

    def __init__(self, folder: Path, user: str, password: str) -> None:
        self.folder, self.expected = folder, f"{user}:{password}"
        self.refused = 0  # requests answered 401 for a wrong or missing login
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.backend()

            def do_POST(self) -> None:
                self.backend()

            def log_message(self, *args) -> None:
                pass

            def backend(self) -> None:
                given = self.headers.get("Authorization", "")
                login = base64.b64decode(given[6:]).decode() if given.startswith("Basic ") else ""
                if login != server.expected:
                    server.refused += 1
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="git"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                url = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                environment = {
                    "GIT_PROJECT_ROOT": str(server.folder),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "REMOTE_USER": login.partition(":")[0],
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": url.path,
                    "QUERY_STRING": url.query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "PATH": "/usr/bin:/bin",
                }
                if self.headers.get("Git-Protocol"):
                    environment["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
                done = subprocess.run(BACKEND, input=body, env=environment, capture_output=True)
                end = done.stdout.find(b"\r\n\r\n")
                split = (end, 4) if end >= 0 else (done.stdout.find(b"\n\n"), 2)
                head, content = done.stdout[: split[0]], done.stdout[split[0] + split[1] :]
                status = 200
                headers = []
                for line in head.decode().replace("\r\n", "\n").split("\n"):
                    name, _, value = line.partition(": ")
                    if name.lower() == "status":
                        status = int(value.split()[0])
                    elif name:
                        headers.append((name, value))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/{name}"

    def __enter__(self) -> GitHttp:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.http.shutdown()
        self.http.server_close()
