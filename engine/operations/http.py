"""HTTP requests, made from the server in context by its agent (the local machine, or over
SSH the remote server itself)."""

from __future__ import annotations

import base64
import urllib.parse

from engine.agents.base import HttpAnswer, HttpRequest
from engine.interpreter.host import PASSWORD, TOKEN
from engine.registry import Kind, Operation, ParamType, operation, param
from engine.values import to_text

TIMEOUT_SECONDS = 60


def error_codes(text: str | None) -> list[tuple[int, int]]:
    """'400:599, 302' -> [(400, 599), (302, 302)]; every 4xx and 5xx by default."""
    if not text:
        return [(400, 599)]
    ranges = []
    for part in text.split(","):
        start, _, end = part.strip().partition(":")
        try:
            ranges.append((int(start), int(end or start)))
        except ValueError:
            raise ValueError(
                f"ErrorStatusCodes '{text}' is not a list of codes and ranges like '400:499, 500'"
            ) from None
    return ranges


class HttpOperation(Operation):
    # a user name and password (Basic authentication), or a token (Bearer, or Basic with the
    # credential's user name when it has one); a private key is never sent over HTTP
    credential_kinds = (PASSWORD, TOKEN)

    log_body = param(
        "LogResponseBody", ParamType.BOOLEAN, default=False, description="Log the response body."
    )
    error_status_codes = param(
        "ErrorStatusCodes",
        default=None,
        description="Codes that fail the operation, like '400:599' (every 4xx and 5xx by default).",
    )
    response_body = param(
        "ResponseBody", output=True, description="The response body, for ResponseBody => $variable."
    )
    headers = param("RequestHeaders", ParamType.MAP, default=None, description="Request headers.")
    max_length = param(
        "MaxResponseLength",
        ParamType.INTEGER,
        default=1000,
        description="The most characters of the body to log.",
    )
    proxy = param(
        "ProxyRequest", ParamType.BOOLEAN, default=True, description="Accepted for compatibility."
    )
    credentials = param(
        "Credentials",
        default=None,
        description="A credential that authenticates the request: a user name and password, "
        "or a token (any other kind is refused, and nothing is sent).",
    )
    user_name = param("UserName", default=None, description="A user name for basic authentication.")
    password = param("Password", default=None, description="A password for basic authentication.")
    ignore_ssl = param(
        "IgnoreSslErrors",
        ParamType.BOOLEAN,
        default=False,
        description="Accept any TLS certificate.",
    )

    async def request(
        self, run, method: str, url: str, body: bytes | None = None, content_type: str | None = None
    ) -> HttpAnswer:
        headers = {k: to_text(v) for k, v in (self.headers or {}).items()}
        user, password = self.user_name, self.password
        if self.credentials:
            credential = run.credential(
                self.credentials, kinds=self.credential_kinds, use=self.spec.name
            )
            user, password = credential.username, credential.secret
            if credential.kind == TOKEN and not user:
                headers["Authorization"] = f"Bearer {credential.secret}"
        if user:
            if password:
                run.add_secret(password)
            token = base64.b64encode(f"{user}:{password or ''}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        if content_type:
            headers["Content-Type"] = content_type
        try:
            scheme = urllib.parse.urlsplit(url).scheme
        except ValueError as error:
            raise ValueError(f"'{url}' is not a URL: {error}") from None
        if scheme not in ("http", "https"):
            raise ValueError(f"'{url}' is not an http or https URL")
        if any(character.isspace() or ord(character) < 32 for character in url):
            raise ValueError(
                f"'{url}' is not a URL: it holds a space or a control character (a space is %20)"
            )
        run.info(f"{method} {url}")
        response = await (await run.agent()).http(
            HttpRequest(
                method,
                url,
                headers,
                body,
                timeout=TIMEOUT_SECONDS,
                verify_tls=not self.ignore_ssl,
            )
        )
        text = response.body.decode("utf-8", errors="replace")
        self.response_body = text
        if self.log_body and text:
            shown = text if len(text) <= self.max_length else text[: self.max_length] + "…"
            run.debug(f"Response body: {shown}")
        if any(
            low <= response.status <= high for low, high in error_codes(self.error_status_codes)
        ):
            run.error(f"{method} {url} answered {response.status} {response.reason}.")
        else:
            run.info(f"{url} answered {response.status} {response.reason}.")
        return response


@operation(
    "Get-Http",
    namespace="HTTP",
    kind=Kind.EXECUTE,
    description="Sends a GET (or DELETE/HEAD) request.",
)
class GetHttp(HttpOperation):
    url = param("Url", positional=True, required=True, description="The URL.")
    method = param("Method", default="GET", description="GET, DELETE or HEAD.")

    async def execute(self, run) -> None:
        method = self.method.upper()
        if method not in ("GET", "DELETE", "HEAD"):
            raise ValueError(f"Get-Http's Method is GET, DELETE or HEAD, not '{self.method}'")
        await self.request(run, method, self.url)


@operation(
    "Post-Http",
    namespace="HTTP",
    kind=Kind.EXECUTE,
    description="Sends a POST (or PUT/PATCH) request with text or form data.",
)
class PostHttp(HttpOperation):
    url = param("Url", positional=True, required=True, description="The URL.")
    method = param("Method", default="POST", description="POST, PUT or PATCH.")
    content_type = param(
        "ContentType",
        default=None,
        description="The content type (form data by default; text/plain for TextData).",
    )
    text_data = param(
        "TextData", aliases=("PostData",), default=None, description="The request body as text."
    )
    form_data = param(
        "FormData",
        ParamType.MAP,
        default=None,
        description="Form fields, when there is no TextData.",
    )
    log_request = param(
        "LogRequestData", ParamType.BOOLEAN, default=False, description="Log the request body."
    )

    async def execute(self, run) -> None:
        method = self.method.upper()
        if method not in ("POST", "PUT", "PATCH"):
            raise ValueError(f"Post-Http's Method is POST, PUT or PATCH, not '{self.method}'")
        if self.text_data is not None:
            body, content_type = (
                self.text_data.encode(),
                self.content_type or "text/plain; charset=utf-8",
            )
        else:
            form = {k: to_text(v) for k, v in (self.form_data or {}).items()}
            body, content_type = (
                urllib.parse.urlencode(form).encode(),
                self.content_type or "application/x-www-form-urlencoded",
            )
        if self.log_request:
            run.debug(f"Request body: {body.decode('utf-8', errors='replace')}")
        await self.request(run, method, self.url, body, content_type)


@operation(
    "Download-Http",
    namespace="HTTP",
    kind=Kind.EXECUTE,
    description="Downloads a URL to a file on the server in context.",
)
class DownloadHttp(HttpOperation):
    url = param("Url", positional=True, required=True, description="The URL.")
    file_name = param("FileName", required=True, description="Where to save the file.")

    async def execute(self, run) -> None:
        response = await self.request(run, "GET", self.url)
        if any(
            low <= response.status <= high for low, high in error_codes(self.error_status_codes)
        ):
            return
        path = run.resolve(self.file_name)
        await (await run.agent()).write_file(path, response.body)
        run.info(f"Saved {len(response.body):,} bytes to {path}.")


@operation(
    "Upload-Http",
    namespace="HTTP",
    kind=Kind.EXECUTE,
    description="Uploads a file from the server in context to a URL.",
)
class UploadHttp(HttpOperation):
    file_name = param("FileName", positional=True, required=True, description="The file to upload.")
    url = param("Url", required=True, description="The URL.")
    method = param("Method", default="POST", description="POST or PUT.")

    async def execute(self, run) -> None:
        path = run.resolve(self.file_name)
        data = await (await run.agent()).read_file(path)
        await self.request(run, self.method.upper(), self.url, data, "application/octet-stream")
