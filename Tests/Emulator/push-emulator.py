#!/usr/bin/env python3
"""A local APNs / FCM HTTP/2 emulator for PushSeal's delivery tests and the send benchmark.

It speaks HTTP/2 over TLS (the h2 package on asyncio) on loopback, with a certificate from a
test CA it makes at start, and it checks what the real services check that matters to a
client: ES256 provider tokens (APNs) and RS256 OAuth2 assertions and bearer tokens (FCM),
paths, headers and bodies. Behaviour per device token is scripted by the tests through files:
``<dir>/script/<token>`` holds a JSON list of steps; attempt n of that token uses step n (the
last one repeats). A step is ``{"status": 429, "reason": "TooManyRequests", "retry_after": 1}``,
``{"status": 404, "fcm_error": "UNREGISTERED", "fcm_status": "NOT_FOUND"}``,
``{"action": "reset"}`` (RST_STREAM), ``{"action": "goaway"}`` (GOAWAY, then close),
``{"action": "stall"}`` (never answer) or ``{"delay_ms": 200}`` before the answer. An APNs
step may carry ``"timestamp"`` (the 410 body's milliseconds since 1970).
Each request is logged as one JSON line in ``<dir>/requests.jsonl`` (unless --quiet).

Two more listeners answer what a misconfigured sender meets: ``wrong-host-url`` serves the same
APNs/FCM emulator with a certificate (from the test CA) for another host name, and
``reset-url`` accepts TCP connections and resets them at once (RST, before any TLS).

    push-emulator.py --dir DIR        # writes ca.pem, apns-key.p8, apns-wrong-key.p8, apns-p384-key.p8,
                                      # fcm-service-account.json, url, wrong-host-url,
                                      # reset-url, then 'ready'
"""
import argparse
import asyncio
import base64
import datetime
import hashlib
import ipaddress
import itertools
import json
import os
import re
import secrets
import signal
import socket
import ssl
import struct
import sys
import time
import urllib.parse

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

APNS_KEY_ID = "EMUKEY1234"
APNS_TEAM_ID = "EMUTEAM123"
FCM_PROJECT = "pushseal-emulator"
FCM_CLIENT_EMAIL = "sender@pushseal-emulator.iam.gserviceaccount.com"
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def pem_private(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def make_files(directory, port, wrong_host_port):
    """The test CA, the server certificates, the APNs keys and the FCM service account."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "PushSeal test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = (x509.CertificateBuilder()
              .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
              .issuer_name(ca_name).public_key(server_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
              .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
              .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
              .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
              .sign(ca_key, hashes.SHA256()))
    write = lambda name, data, mode=0o600: (open(os.path.join(directory, name), "wb").write(data), os.chmod(os.path.join(directory, name), mode))
    wrong_key = ec.generate_private_key(ec.SECP256R1())
    wrong = (x509.CertificateBuilder()
             .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push.example.invalid")]))
             .issuer_name(ca_name).public_key(wrong_key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
             .add_extension(x509.SubjectAlternativeName([x509.DNSName("push.example.invalid")]), critical=False)
             .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
             .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
             .sign(ca_key, hashes.SHA256()))
    write("ca.pem", ca.public_bytes(serialization.Encoding.PEM), 0o644)
    write("wrong-host.pem", wrong.public_bytes(serialization.Encoding.PEM), 0o644)
    write("wrong-host-key.pem", pem_private(wrong_key))
    write("server.pem", server.public_bytes(serialization.Encoding.PEM), 0o644)
    write("server-key.pem", pem_private(server_key))
    apns_key = ec.generate_private_key(ec.SECP256R1())
    write("apns-key.p8", pem_private(apns_key))
    write("apns-wrong-key.p8", pem_private(ec.generate_private_key(ec.SECP256R1())))
    write("apns-p384-key.p8", pem_private(ec.generate_private_key(ec.SECP384R1())))   # not an APNs key
    write("apns-key-id", APNS_KEY_ID.encode(), 0o644)
    write("apns-team-id", APNS_TEAM_ID.encode(), 0o644)
    fcm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    account = {
        "type": "service_account", "project_id": FCM_PROJECT, "private_key_id": secrets.token_hex(20),
        "private_key": pem_private(fcm_key).decode(), "client_email": FCM_CLIENT_EMAIL,
        "client_id": "1", "token_uri": f"https://127.0.0.1:{port}/token",
    }
    write("fcm-service-account.json", json.dumps(account, indent=2).encode())
    write("url", f"https://127.0.0.1:{port}".encode(), 0o644)
    write("wrong-host-url", f"https://127.0.0.1:{wrong_host_port}".encode(), 0o644)
    return apns_key.public_key(), fcm_key.public_key()


class State:
    def __init__(self, directory, apns_public, fcm_public, port, quiet, token_lifetime):
        self.directory = directory
        self.apns_public = apns_public
        self.fcm_public = fcm_public
        self.token_url = f"https://127.0.0.1:{port}/token"
        self.quiet = quiet
        self.token_lifetime = token_lifetime
        self.verified_jwts = {}          # provider token -> iat
        self.access_tokens = {}          # bearer -> expiry
        self.attempts = {}               # device token -> attempts so far
        self.connections = itertools.count(1)
        self.message_ids = itertools.count(1)
        self.log = None if quiet else open(os.path.join(directory, "requests.jsonl"), "a", buffering=1)

    def step(self, token):
        n = self.attempts.get(token, 0)
        self.attempts[token] = n + 1
        path = os.path.join(self.directory, "script", token)
        if not token or "/" in token or not os.path.exists(path):
            return n, {}
        with open(path) as f:
            steps = json.load(f)
        return n, steps[min(n, len(steps) - 1)]

    def record(self, **entry):
        if self.log:
            self.log.write(json.dumps(entry) + "\n")

    # --- APNs -----------------------------------------------------------------------------
    def check_provider_token(self, authorization):
        if not authorization.startswith("bearer "):
            return "MissingProviderToken"
        token = authorization[len("bearer "):]
        iat = self.verified_jwts.get(token)
        if iat is None:
            try:
                header_b64, claims_b64, signature_b64 = token.split(".")
                header = json.loads(b64url_decode(header_b64))
                claims = json.loads(b64url_decode(claims_b64))
                signature = b64url_decode(signature_b64)
                if header.get("alg") != "ES256" or header.get("kid") != APNS_KEY_ID or claims.get("iss") != APNS_TEAM_ID:
                    return "InvalidProviderToken"
                if len(signature) != 64:
                    return "InvalidProviderToken"
                der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
                self.apns_public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
                iat = int(claims["iat"])
            except Exception:
                return "InvalidProviderToken"
            self.verified_jwts[token] = iat
        if not (time.time() - 3600 <= iat <= time.time() + 60):
            return "ExpiredProviderToken"
        return None

    def apns(self, headers, path, body):
        match = re.fullmatch(r"/3/device/([^/]*)", path)
        if headers.get(":method") != "POST" or not match:
            return 404 if match is None else 405, {}, {"reason": "BadPath" if match is None else "MethodNotAllowed"}, None
        token = match.group(1)
        problem = self.check_provider_token(headers.get("authorization", ""))
        if problem:
            return 403, {}, {"reason": problem}, token
        if not re.fullmatch(r"[0-9a-fA-F]{16,400}", token):
            return 400, {}, {"reason": "BadDeviceToken"}, token
        if not headers.get("apns-topic"):
            return 400, {}, {"reason": "MissingTopic"}, token
        if headers.get("apns-push-type") != "alert":
            return 400, {}, {"reason": "InvalidPushType"}, token
        if headers.get("apns-priority") not in ("5", "10"):
            return 400, {}, {"reason": "BadPriority"}, token
        if not re.fullmatch(r"[0-9]+", headers.get("apns-expiration", "0")):
            return 400, {}, {"reason": "BadExpirationDate"}, token
        if len(headers.get("apns-collapse-id", "")) > 64:
            return 400, {}, {"reason": "BadCollapseId"}, token
        if len(body) > 4096:
            return 413, {}, {"reason": "PayloadTooLarge"}, token
        try:
            payload = json.loads(body)
            assert payload["aps"]["mutable-content"] == 1 and isinstance(payload["pushseal"], str)
            assert payload["aps"]["alert"]
        except Exception:
            return 400, {}, {"reason": "PayloadEmpty"}, token
        return 200, {"apns-id": f"00000000-0000-4000-8000-{next(self.message_ids):012d}"}, None, token

    # --- FCM ------------------------------------------------------------------------------
    def oauth_token(self, body):
        form = urllib.parse.parse_qs(body.decode())
        bad = 400, {}, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}, "__token__"
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"] or len(form.get("assertion", [])) != 1:
            return 400, {}, {"error": "unsupported_grant_type"}, "__token__"
        try:
            header_b64, claims_b64, signature_b64 = form["assertion"][0].split(".")
            header = json.loads(b64url_decode(header_b64))
            claims = json.loads(b64url_decode(claims_b64))
            self.fcm_public.verify(b64url_decode(signature_b64), f"{header_b64}.{claims_b64}".encode(), padding.PKCS1v15(), hashes.SHA256())
        except Exception:
            return bad
        if header.get("alg") != "RS256" or claims.get("iss") != FCM_CLIENT_EMAIL or claims.get("aud") != self.token_url:
            return bad
        if FCM_SCOPE not in claims.get("scope", "").split() or not (0 < claims["exp"] - claims["iat"] <= 3600):
            return bad
        access = "ya29." + secrets.token_urlsafe(24)
        self.access_tokens[access] = time.time() + self.token_lifetime
        return 200, {}, {"access_token": access, "expires_in": self.token_lifetime, "token_type": "Bearer"}, "__token__"

    def fcm(self, headers, path, body):
        def error(status, name, code=None):
            details = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}] if code else []
            return status, {}, {"error": {"code": status, "message": name, "status": name, "details": details}}
        if path != f"/v1/projects/{FCM_PROJECT}/messages:send":
            return (*error(404, "NOT_FOUND"), None)
        authorization = headers.get("authorization", "")
        expiry = self.access_tokens.get(authorization[len("Bearer "):]) if authorization.startswith("Bearer ") else None
        if expiry is None or expiry < time.time():
            return (*error(401, "UNAUTHENTICATED"), None)
        try:
            message = json.loads(body)["message"]
            token = message["token"]
        except Exception:
            return (*error(400, "INVALID_ARGUMENT"), None)
        try:
            if "apns" in message:
                apns = message["apns"]
                assert apns["headers"]["apns-push-type"] == "alert"
                assert apns["payload"]["aps"]["mutable-content"] == 1 and isinstance(apns["payload"]["pushseal"], str)
                assert len(json.dumps(apns["payload"], separators=(",", ":"))) <= 4096
                assert "data" not in message and "notification" not in message
            else:
                data = message["data"]
                assert isinstance(data["pushseal"], str) and sum(len(k) + len(v) for k, v in data.items()) <= 4096
                assert message["android"]["priority"] in ("high", "normal") and re.fullmatch(r"[0-9]+s", message["android"]["ttl"])
                assert "notification" not in message
        except Exception:
            return (*error(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"), token)
        if json.loads(body).get("validate_only") is True:   # checked, not sent (FCM's answer names a fake message)
            return 200, {}, {"name": f"projects/{FCM_PROJECT}/messages/fake_message_id"}, token
        return 200, {}, {"name": f"projects/{FCM_PROJECT}/messages/{next(self.message_ids)}"}, token


class Connection(asyncio.Protocol):
    def __init__(self, state):
        self.state = state
        self.id = next(state.connections)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.streams = {}
        self.unanswered = set()          # streams received in full and not answered yet
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        self.conn.initiate_connection()
        self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and self.transport and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except Exception:
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = (dict(event.headers), bytearray())
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id][1].extend(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.handle(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                self.streams.pop(event.stream_id, None)
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.transport.close()
        self.flush()

    def handle(self, stream_id):
        headers, body = self.streams.pop(stream_id)
        self.unanswered.add(stream_id)
        path = headers.get(":path", "")
        state = self.state
        if path == "/token":
            status, extra, answer, token = state.oauth_token(bytes(body))
            kind = "token"
        elif path.startswith("/3/"):
            status, extra, answer, token = state.apns(headers, path, bytes(body))
            kind = "apns"
        else:
            status, extra, answer, token = state.fcm(headers, path, bytes(body))
            kind = "fcm"
        attempt, step = state.step(token or "")
        authorization = headers.get("authorization", "")
        entry = dict(kind=kind, conn=self.id, stream=stream_id, token=token, attempt=attempt,
                     auth=hashlib.sha256(authorization.encode()).hexdigest()[:16] if authorization else None,
                     topic=headers.get("apns-topic"), priority=headers.get("apns-priority"),
                     expiration=headers.get("apns-expiration"), collapse=headers.get("apns-collapse-id"),
                     body=bytes(body).decode("utf-8", "replace") if kind != "token" else None,
                     inflight=len(self.unanswered))
        action = step.get("action")
        if action == "reset":
            state.record(**entry, action="reset")
            self.unanswered.discard(stream_id)
            self.conn.reset_stream(stream_id, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
            return
        if action == "goaway":
            state.record(**entry, action="goaway")
            self.conn.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=max(stream_id - 2, 0))
            self.flush()
            asyncio.get_running_loop().call_later(0.05, self.transport.close)
            return
        if action == "stall":
            state.record(**entry, action="stall")
            return
        if status == 200 and step.get("status", 200) != 200:   # a scripted failure (a scripted 200 is the real answer)
            status, extra = step["status"], {}
            if kind == "fcm" and status != 200:
                name = step.get("fcm_status", "INTERNAL")
                code = step.get("fcm_error")
                answer = {"error": {"code": status, "message": name, "status": name,
                                    "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}] if code else []}}
            else:
                answer = {"reason": step.get("reason", "InternalServerError")}
                if "timestamp" in step:
                    answer["timestamp"] = step["timestamp"]
            if "retry_after" in step:
                extra["retry-after"] = str(step["retry_after"])
        state.record(**entry, status=status)
        respond = lambda: self.respond(stream_id, status, extra, answer)
        if step.get("delay_ms"):
            asyncio.get_running_loop().call_later(step["delay_ms"] / 1000, respond)
        else:
            respond()

    def respond(self, stream_id, status, extra, answer):
        self.unanswered.discard(stream_id)
        data = json.dumps(answer, separators=(",", ":")).encode() if answer is not None else b""
        response = [(":status", str(status))] + list(extra.items())
        if data:
            response += [("content-type", "application/json"), ("content-length", str(len(data)))]
        try:
            self.conn.send_headers(stream_id, response, end_stream=not data)
            if data:
                self.conn.send_data(stream_id, data, end_stream=True)
        except Exception:
            return   # the stream or connection is gone
        self.flush()

    def connection_lost(self, exc):
        self.transport = None


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="no request log (benchmarks)")
    parser.add_argument("--fcm-token-lifetime", type=int, default=3600)
    args = parser.parse_args()
    os.makedirs(os.path.join(args.dir, "script"), exist_ok=True)

    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    wrong_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    wrong_sock.bind(("127.0.0.1", 0))
    apns_public, fcm_public = make_files(args.dir, port, wrong_sock.getsockname()[1])
    def tls(certificate, key):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(args.dir, certificate), os.path.join(args.dir, key))
        context.set_alpn_protocols(["h2"])
        return context
    state = State(args.dir, apns_public, fcm_public, port, args.quiet, args.fcm_token_lifetime)
    server = await loop.create_server(lambda: Connection(state), sock=sock, ssl=tls("server.pem", "server-key.pem"), backlog=128)
    await loop.create_server(lambda: Connection(state), sock=wrong_sock, ssl=tls("wrong-host.pem", "wrong-host-key.pem"))
    reset_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    reset_sock.bind(("127.0.0.1", 0))
    reset_sock.listen(16)
    reset_sock.setblocking(False)
    def reset_one():
        try:
            client, _ = reset_sock.accept()
        except BlockingIOError:
            return
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()   # RST
    loop.add_reader(reset_sock.fileno(), reset_one)
    with open(os.path.join(args.dir, "reset-url"), "w") as f:
        f.write(f"https://127.0.0.1:{reset_sock.getsockname()[1]}")
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    with open(os.path.join(args.dir, "pid"), "w") as f:
        f.write(str(os.getpid()))
    with open(os.path.join(args.dir, "ready"), "w") as f:
        f.write(f"https://127.0.0.1:{port}\n")
    print(f"push-emulator: listening on https://127.0.0.1:{port} ({args.dir})", file=sys.stderr)
    await stop.wait()
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
