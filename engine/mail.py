"""E-mail through an SMTP server: the host names the server (the site's relay), the message is
sent from OtterWeb's own process, not from the server in context."""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage

SECURITY = ("starttls", "tls", "none")


@dataclass(frozen=True)
class SmtpServer:
    """Where and how to send mail. ``security``: ``starttls`` (a plain connection upgraded to
    TLS before anything is sent, port 587), ``tls`` (TLS from the start, port 465) or ``none``
    (a relay on a trusted network). The certificate is checked against the system's
    authorities, and ``ca_file``'s."""

    host: str
    port: int = 587
    security: str = "starttls"
    sender: str = ""
    username: str = ""
    password: str = field(default="", repr=False)
    ca_file: str = ""
    timeout: float = 30.0

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


def _tls(server: SmtpServer) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if server.ca_file:
        context.load_verify_locations(cafile=server.ca_file)
    return context


def send(server: SmtpServer, message: EmailMessage, recipients: list[str]) -> None:
    """Send ``message`` to ``recipients`` (To, CC and Bcc) through ``server``; a ValueError says
    what went wrong in words (never the password). Blocking: run it in a thread."""
    if server.security not in SECURITY:
        raise ValueError(f"SMTP security '{server.security}' is not one of {', '.join(SECURITY)}")
    try:
        if server.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                server.host, server.port, timeout=server.timeout, context=_tls(server)
            )
        else:
            client = smtplib.SMTP(server.host, server.port, timeout=server.timeout)
        with client:
            if server.security == "starttls":
                client.starttls(context=_tls(server))
            if server.username:
                client.login(server.username, server.password)
            refused = client.send_message(message, to_addrs=recipients)
    except smtplib.SMTPAuthenticationError as error:
        raise ValueError(
            f"the SMTP server {server.where} refused the login of {server.username}: "
            f"{_said(error.smtp_error)}"
        ) from None
    except smtplib.SMTPNotSupportedError as error:
        raise ValueError(f"the SMTP server {server.where} does not support it: {error}") from None
    except smtplib.SMTPRecipientsRefused as error:
        raise ValueError(
            f"the SMTP server {server.where} refused {_refused(error.recipients)}"
        ) from None
    except smtplib.SMTPResponseException as error:
        raise ValueError(
            f"the SMTP server {server.where} answered {error.smtp_code}: {_said(error.smtp_error)}"
        ) from None
    except ssl.SSLError as error:
        raise ValueError(
            f"TLS with the SMTP server {server.where} failed: {error.reason or error}"
        ) from None
    except (smtplib.SMTPException, OSError) as error:
        raise ValueError(
            f"could not send through the SMTP server {server.where}: {error}"
        ) from None
    if refused:
        raise ValueError(f"the SMTP server {server.where} refused {_refused(refused)}")


def _said(answer: bytes | str) -> str:
    return answer.decode(errors="replace") if isinstance(answer, bytes) else str(answer)


def _refused(recipients: dict) -> str:
    return ", ".join(
        f"{address} ({code} {_said(said)})" for address, (code, said) in recipients.items()
    )
