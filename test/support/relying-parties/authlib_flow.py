"""
A server-side web app that signs one user in with Authlib 1.2 (Debian's python3-authlib), for
test/browser/relying-parties.test.ts: Authlib's requests client (OAuth2Session) with its default
client authentication for a client with a secret, client_secret_basic, PKCE S256 and a nonce,
and the ID token checked as Authlib's own web-framework clients check it (parse_id_token in
authlib/integrations/base_client/sync_openid.py: signature by the issuer's JWKS, iss, nonce,
at_hash) plus aud, which that code leaves to the caller.

Run by Debian's /usr/bin/python3 (the python3 on PATH may be another one, without Debian's
packages): `authlib_flow.py CLIENT_ID`, the secret in RP_CLIENT_SECRET (not in argv, which any
process can read). It listens on a free loopback port and prints {"port": N}; the test then
registers http://127.0.0.1:N/callback, starts the service and writes the issuer to stdin. The
browser opens /login; /callback exchanges the code, reads UserInfo, refreshes, reads UserInfo
with the new token, answers what it saw (never a token) and prints it too, then the app exits.
"""
import json
import os
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import urlsplit, parse_qs

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebToken
from authlib.oidc.core import CodeIDToken

CLIENT_ID = sys.argv[1]
CLIENT_SECRET = os.environ['RP_CLIENT_SECRET']
SCOPE = 'openid email'
TRANSACTION_COOKIE = 'authlib_transaction'

# The app's sessions: one per browser, keyed by a random cookie, as a web framework keeps them.
transactions = {}


def new_session(origin, metadata, **kwargs):
    return OAuth2Session(CLIENT_ID, CLIENT_SECRET, scope=SCOPE, redirect_uri=origin + '/callback',
                         code_challenge_method='S256', token_endpoint=metadata['token_endpoint'], **kwargs)


def id_token_claims(issuer, metadata, token, nonce):
    jwks = requests.get(metadata['jwks_uri']).json()
    claims = JsonWebToken(metadata['id_token_signing_alg_values_supported']).decode(
        token['id_token'], key=jwks, claims_cls=CodeIDToken,
        claims_options={'iss': {'values': [issuer]}, 'aud': {'values': [CLIENT_ID]}},
        claims_params={'nonce': nonce, 'client_id': CLIENT_ID, 'access_token': token['access_token']})
    claims.validate(leeway=120)
    return claims


def make_handler(issuer, metadata, origin, finished):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args):
            pass  # The service's logs are the test's; this app's access log would only be noise.

        def send(self, status, body, headers=()):
            data = json.dumps(body).encode()
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            path = urlsplit(self.path).path
            if path == '/login':
                return self.login()
            if path == '/callback':
                return self.callback()
            self.send(404, {'error': 'not found'})

        def login(self):
            verifier, nonce = generate_token(48), generate_token(20)
            url, state = new_session(origin, metadata).create_authorization_url(
                metadata['authorization_endpoint'], code_verifier=verifier, nonce=nonce)
            key = secrets.token_urlsafe(16)
            transactions[key] = {'state': state, 'verifier': verifier, 'nonce': nonce}
            self.send_response(302)
            self.send_header('Location', url)
            self.send_header('Set-Cookie', f'{TRANSACTION_COOKIE}={key}; Path=/; HttpOnly; SameSite=Lax')
            self.send_header('Content-Length', '0')
            self.end_headers()

        def callback(self):
            cookies = dict(part.strip().split('=', 1) for part in (self.headers.get('Cookie') or '').split(';') if '=' in part)
            transaction = transactions.pop(cookies.get(TRANSACTION_COOKIE), None)
            if transaction is None:
                return self.send(400, {'error': 'no login in progress'})
            try:
                session = new_session(origin, metadata, state=transaction['state'])
                token = session.fetch_token(metadata['token_endpoint'], authorization_response=origin + self.path,
                                            state=transaction['state'], code_verifier=transaction['verifier'])
                claims = id_token_claims(issuer, metadata, token, transaction['nonce'])
                userinfo = session.get(metadata['userinfo_endpoint']).json()
                refreshed = session.refresh_token(metadata['token_endpoint'])
                result = {
                    'query': sorted(parse_qs(urlsplit(self.path).query)),
                    'id_token': {name: claims.get(name) for name in ('iss', 'aud', 'sub', 'email', 'email_verified')},
                    'userinfo': userinfo,
                    'refreshed': {
                        'rotated': refreshed['refresh_token'] != token['refresh_token'],
                        'new_access_token': refreshed['access_token'] != token['access_token'],
                        'userinfo': session.get(metadata['userinfo_endpoint']).json(),
                    },
                }
            except Exception as error:  # Shown to the test, which fails with the library's own words.
                result = {'error': type(error).__name__, 'description': str(error)}
            self.send(200, result)
            finished(result)

    return Handler


def main():
    server = HTTPServer(('127.0.0.1', 0), None)
    origin = f'http://127.0.0.1:{server.server_address[1]}'
    print(json.dumps({'port': server.server_address[1]}), flush=True)
    issuer = sys.stdin.readline().strip()
    metadata = requests.get(issuer + '/.well-known/openid-configuration').json()
    if metadata['issuer'] != issuer:
        raise SystemExit(f'discovery: issuer {metadata["issuer"]} is not {issuer}')  # OIDC Discovery §4.3

    def finished(result):
        print(json.dumps(result), flush=True)
        threading.Thread(target=server.shutdown).start()

    server.RequestHandlerClass = make_handler(issuer, metadata, origin, finished)
    server.serve_forever()


if __name__ == '__main__':
    main()
