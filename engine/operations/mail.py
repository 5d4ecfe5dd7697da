"""Send-Email: a message through the host's SMTP server (the site's), with attachments read
from the server in context."""

from __future__ import annotations

import asyncio
import mimetypes
import posixpath
from dataclasses import replace
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from engine.interpreter.host import PASSWORD
from engine.mail import send
from engine.registry import Kind, Operation, ParamType, operation, param
from engine.values import to_text


def addresses(value) -> list[str]:
    """A list of addresses, or one (or several, separated by commas or semicolons) as text."""
    items = value if isinstance(value, list) else [value]
    found = []
    for item in items:
        for address in to_text(item).replace(";", ",").split(","):
            if address.strip():
                found.append(address.strip())
    return found


@operation(
    "Send-Email",
    namespace="InedoCore",
    kind=Kind.EXECUTE,
    description="Sends an e-mail message through the site's SMTP server.",
)
class SendEmail(Operation):
    to = param(
        "To",
        ParamType.ANY,
        required=True,
        description="An address, or a list of them.",
    )
    subject = param("Subject", default="", description="The subject.")
    text = param("Text", default=None, description="The plain-text body.")
    html = param(
        "Html",
        default=None,
        description="The HTML body (with Text: both, the reader's mail program picks).",
    )
    cc = param("CC", ParamType.ANY, default=None, description="An address, or a list of them.")
    bcc = param(
        "Bcc",
        ParamType.ANY,
        default=None,
        description="An address, or a list of them: not shown to the others.",
    )
    sender = param(
        "From", default=None, description="The sender's address (the site's by default)."
    )
    attachments = param(
        "Attachments",
        ParamType.LIST,
        default=None,
        description="Files on the server in context to attach (relative ones from AttachmentDirectory).",
    )
    attachment_directory = param(
        "AttachmentDirectory",
        default=None,
        description="Where relative Attachments are (the working directory by default).",
    )
    credentials = param(
        "Credentials",
        default=None,
        description="A user name and password to log in to the SMTP server with, instead of the site's.",
    )

    def summary(self) -> str:
        return f"Send-Email to {', '.join(addresses(self.to))}: {self.subject}"

    async def execute(self, run) -> None:
        server = run.host.smtp_server()
        if self.credentials:
            login = run.credential(self.credentials, kinds=(PASSWORD,), use=self.spec.name)
            server = replace(server, username=login.username, password=login.secret)
        if server.password:
            run.add_secret(server.password)
        to, cc, bcc = addresses(self.to), addresses(self.cc or []), addresses(self.bcc or [])
        if not to:
            raise ValueError("To names no address")
        sender = self.sender or server.sender
        if not sender:
            raise ValueError("the message has no sender: set From, or the site's sender address")
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, ", ".join(to), self.subject
        if cc:
            message["Cc"] = ", ".join(cc)
        message["Date"] = formatdate(localtime=True)
        message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
        if self.text is None and self.html is not None:
            message.set_content(self.html, subtype="html")
        else:
            message.set_content(self.text or "")
            if self.html is not None:
                message.add_alternative(self.html, subtype="html")
        await self.attach(run, message)
        await asyncio.to_thread(send, server, message, [*to, *cc, *bcc])
        run.info(
            f"Sent '{self.subject}' to {len(to) + len(cc) + len(bcc)} recipient(s) through "
            f"{server.where}."
        )

    async def attach(self, run, message: EmailMessage) -> None:
        if not self.attachments:
            return
        agent = await run.agent()
        folder = run.resolve(self.attachment_directory or "")
        for path in self.attachments:
            name = to_text(path)
            full = run.resolve(posixpath.join(folder, name) if folder else name)
            data = await agent.read_file(full)
            kind, _ = mimetypes.guess_type(full)
            main, _, sub = (kind or "application/octet-stream").partition("/")
            message.add_attachment(
                data, maintype=main, subtype=sub, filename=posixpath.basename(full)
            )
