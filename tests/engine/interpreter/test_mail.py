"""Send-Email to a real SMTP server started by the test (aiosmtpd on 127.0.0.1): STARTTLS and
TLS from the start with a certificate the test makes, a login the server requires, attachments
read from the server in context, and the refusals said in words."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from dataclasses import replace
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from engine.interpreter import Level, RunCredential
from engine.mail import SmtpServer

USER, PASSWORD = "otter", "smtp-s3cret"


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost: (certificate, key) files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "smtp.crt", folder / "smtp.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):
        if any(address.startswith("refused") for address in envelope.rcpt_tos):
            return "550 5.1.1 no such mailbox"
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


def authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (
        USER.encode(),
        PASSWORD.encode(),
    )
    return AuthResult(success=ok, handled=False)  # aiosmtpd answers 235 or 535


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtpd(tmp_path):
    """Two SMTP servers that require a login: STARTTLS on one port, TLS from the start on the
    other. Yields (inbox, {"starttls": SmtpServer, "tls": SmtpServer})."""
    cert_file, key_file = certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    inbox = Inbox()
    common = {"hostname": "127.0.0.1", "authenticator": authenticate}
    starttls = Controller(
        inbox,
        port=free_port(),
        tls_context=context,
        require_starttls=True,
        auth_require_tls=True,
        **common,
    )
    # TLS from the start: aiosmtpd's auth_require_tls sees only STARTTLS, so it is off here
    implicit = Controller(
        inbox, port=free_port(), ssl_context=context, auth_require_tls=False, **common
    )
    starttls.start()
    implicit.start()
    servers = {
        security: SmtpServer(
            host="127.0.0.1",
            port=controller.port,
            security=security,
            sender="otterweb@example.org",
            username=USER,
            password=PASSWORD,
            ca_file=str(cert_file),
            timeout=10,
        )
        for security, controller in (("starttls", starttls), ("tls", implicit))
    }
    yield inbox, servers
    starttls.stop()
    implicit.stop()


def parsed(raw: bytes):
    return message_from_bytes(raw, policy=policy.default)


async def test_send_email_sends_through_starttls_with_a_login_and_attachments(
    run, host, smtpd, tmp_path
) -> None:
    inbox, servers = smtpd
    host.smtp_server = lambda: servers["starttls"]
    (tmp_path / "report.txt").write_text("3 servers drifted\n")
    ran = await run(
        "Send-Email\n(\n    To: @(ops@example.org, dev@example.org),\n    CC: lead@example.org,\n"
        "    Bcc: audit@example.org,\n    Subject: Nightly drift on $ServerName,\n"
        "    Text: See the report.,\n    Html: <p>See the <b>report</b>.</p>,\n"
        "    Attachments: @(report.txt)\n);"
    )
    assert ran.status == "normal", ran.messages()
    ((recipients, raw),) = inbox.messages
    assert recipients == [
        "ops@example.org",
        "dev@example.org",
        "lead@example.org",
        "audit@example.org",
    ]
    message = parsed(raw)
    assert message["Subject"] == "Nightly drift on localhost"
    assert message["From"] == "otterweb@example.org" and "audit" not in raw.decode()
    assert message.get_body(("plain",)).get_content().strip() == "See the report."
    assert "<b>report</b>" in message.get_body(("html",)).get_content()
    (attachment,) = message.iter_attachments()
    assert (attachment.get_filename(), attachment.get_content()) == (
        "report.txt",
        "3 servers drifted\n",
    )
    assert "Sent 'Nightly drift on localhost' to 4 recipient(s) through 127.0.0.1:" in ran.info[-1]
    assert PASSWORD not in " ".join(ran.messages())


async def test_send_email_sends_over_tls_from_the_start_with_a_credential(run, host, smtpd) -> None:
    inbox, servers = smtpd
    host.credentials["mailer"] = RunCredential(name="mailer", username=USER, secret=PASSWORD)
    host.smtp_server = lambda: replace(servers["tls"], username="", password="")
    ran = await run(
        "Send-Email (To: ops@example.org, Subject: hi, Text: hello, Credentials: mailer);"
    )
    assert ran.status == "normal", ran.messages()
    assert parsed(inbox.messages[0][1]).get_content().strip() == "hello"
    ran = await run("Send-Email (To: ops@example.org, Html: <p>hi</p>, Credentials: mailer);")
    assert ran.status == "normal", ran.messages()
    html = parsed(inbox.messages[1][1])
    assert (html.get_content_type(), html.get_content().strip()) == ("text/html", "<p>hi</p>")


async def test_send_email_says_why_the_server_refused(run, host, smtpd) -> None:
    inbox, servers = smtpd
    host.smtp_server = lambda: replace(servers["starttls"], password="wrong")
    ran = await run("Send-Email (To: ops@example.org, Subject: hi, Text: hello);")
    assert ran.status == "error"
    assert any(f"refused the login of {USER}" in m for m in ran.messages(Level.ERROR))
    assert not any("wrong" in m for m in ran.messages())

    host.smtp_server = lambda: servers["starttls"]
    ran = await run("Send-Email (To: refused@example.org, Subject: hi, Text: hello);")
    assert any("answered 550: 5.1.1 no such mailbox" in m for m in ran.messages(Level.ERROR))

    host.smtp_server = lambda: replace(servers["tls"], ca_file="")  # not a trusted certificate
    ran = await run("Send-Email (To: ops@example.org, Subject: hi, Text: hello);")
    assert any("TLS with the SMTP server 127.0.0.1:" in m for m in ran.messages(Level.ERROR))
    assert inbox.messages == []


async def test_send_email_without_an_smtp_server_says_so(run) -> None:
    ran = await run("Send-Email (To: ops@example.org, Subject: hi, Text: hello);")
    assert ran.status == "error"
    assert any("no SMTP server is set up" in m for m in ran.messages(Level.ERROR))
