"""A second Django site for the directory logins' tests: an OpenID Connect provider made with
django-oauth-toolkit (settings, urls, validators), run by `server.OidcProvider` on a free port of
127.0.0.1 with an RSA key generated at start, one user and OtterWeb as its client."""
