"""`python manage.py reencrypt_secrets`: after a new OTTERWEB_ENCRYPTION_KEY, with the old one in
OTTERWEB_PREVIOUS_ENCRYPTION_KEYS, encrypt every stored secret with the new key: credentials'
secrets and passphrases, sensitive variables' values, and webhook triggers' secrets."""

from django.core.management.base import BaseCommand

from otterweb import secrets
from otterweb.inventory.models import Credential, Variable
from otterweb.schedules.models import Trigger


class Command(BaseCommand):
    help = "Encrypt every stored secret again with the current encryption key."

    def handle(self, *args, **options) -> None:
        changed = secrets.reencrypt(Credential, "encrypted_secret")
        self.stdout.write(f"{changed} credential secrets encrypted with the current key.")
        changed = secrets.reencrypt(Credential, "encrypted_passphrase")
        self.stdout.write(f"{changed} private key passphrases encrypted with the current key.")
        changed = secrets.reencrypt(Variable, "encrypted_value")
        self.stdout.write(f"{changed} sensitive variable values encrypted with the current key.")
        changed = secrets.reencrypt(Trigger, "encrypted_secret")
        self.stdout.write(f"{changed} webhook trigger secrets encrypted with the current key.")
