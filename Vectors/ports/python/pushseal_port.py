#!/usr/bin/env python3
"""PushSeal v1 reference port: Python 3 + `cryptography` (HKDFExpand, ChaCha20Poly1305).

Written from Docs/SPEC.md only. Usage:

  pushseal_port.py [VECTOR_FILE]        run every case (default: Vectors/pushseal-v1.json)
  pushseal_port.py open --key K --conversation CID [--now UNIX] [--max-age S]
                   [--max-future-skew S] < payload.json
  pushseal_port.py seal --key K [--salt S] [--pad-block N] [--apns] < content.json

Exit codes: 0 ok; 1 failure; 3 `open` fell back; 64 usage error.
"""

import os
import re
import sys
import time
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

# ---------------------------------------------------------------- constants (SPEC §4, §7, §10)

VERSION = 0x01
INFO_KID = b"pushseal v1 key id"
INFO_MK = b"pushseal v1 message key"
INFO_TID = b"pushseal v1 thread id"
HEADER_LEN = 41
TAG_LEN = 16
MIN_ENVELOPE = 58
MAX_ENVELOPE = 4096
MAX_WIRE_CHARS = 5462
MAX_CONTENT = 4000
MAX_DEPTH = 16
ZERO_NONCE = bytes(12)
DEFAULT_MAX_AGE = 2678400
DEFAULT_MAX_FUTURE_SKEW = 600
DEFAULT_PAD_BLOCK = 256
TS_MAX = 253402300799
BADGE_MAX = 2147483647

REASONS = (
    "not_sealed", "malformed_envelope", "unsupported_version", "unknown_key", "store_locked",
    "authentication_failed", "malformed_content", "conversation_mismatch", "stale",
)

# ---------------------------------------------------------------- derivations (SPEC §4)


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    return HKDFExpand(algorithm=hashes.SHA256(), length=length, info=info).derive(prk)


def key_id(k: bytes) -> bytes:
    return hkdf_expand(k, INFO_KID, 16)


def message_key(k: bytes, salt: bytes) -> bytes:
    return hkdf_expand(k, INFO_MK + salt, 32)


def thread_id(k: bytes) -> bytes:
    return hkdf_expand(k, INFO_TID, 16)

# ---------------------------------------------------------------- strict base64url (SPEC §8)


B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
B64_VALUE = {c: i for i, c in enumerate(B64_ALPHABET)}


def b64url_encode(data: bytes) -> str:
    out = []
    for i in range(0, len(data), 3):
        chunk = data[i:i + 3]
        n = int.from_bytes(chunk + bytes(3 - len(chunk)), "big")
        chars = [B64_ALPHABET[(n >> s) & 63] for s in (18, 12, 6, 0)]
        out.append("".join(chars[: len(chunk) + 1]))
    return "".join(out)


def b64url_decode(s: str):
    """Strict decode; returns bytes or None."""
    if len(s) % 4 == 1:
        return None
    vals = []
    for c in s:
        v = B64_VALUE.get(c)
        if v is None:
            return None
        vals.append(v)
    rem = len(vals) % 4
    if rem == 2 and vals[-1] & 0x0F:
        return None
    if rem == 3 and vals[-1] & 0x03:
        return None
    out = bytearray()
    for i in range(0, len(vals), 4):
        group = vals[i:i + 4]
        n = 0
        for v in group:
            n = (n << 6) | v
        n <<= 6 * (4 - len(group))
        out += n.to_bytes(3, "big")[: len(group) - 1]
    return bytes(out)

# ---------------------------------------------------------------- strict JSON (SPEC §5.2)


class JSONError(Exception):
    pass


class JNum:
    """A JSON number kept as its exact lexeme."""
    __slots__ = ("raw",)

    def __init__(self, raw):
        self.raw = raw


class JObj:
    """A JSON object as an ordered list of (name, value); duplicates preserved when recorded."""
    __slots__ = ("pairs", "has_dups")

    def __init__(self, pairs, has_dups):
        self.pairs = pairs
        self.has_dups = has_dups

    def get_all(self, name):
        return [v for k, v in self.pairs if k == name]

    def get(self, name, default=None):
        for k, v in self.pairs:
            if k == name:
                return v
        return default

    def dup_names(self):
        seen, dups = set(), set()
        for k, _ in self.pairs:
            if k in seen:
                dups.add(k)
            seen.add(k)
        return dups


_NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WS = " \t\n\r"
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = "0123456789abcdefABCDEF"


class _Parser:
    def __init__(self, text, record_dups, max_depth):
        self.s = text
        self.i = 0
        self.record_dups = record_dups
        self.max_depth = max_depth

    def fail(self, msg):
        raise JSONError(f"{msg} at offset {self.i}")

    def ws(self):
        s, i = self.s, self.i
        while i < len(s) and s[i] in _WS:
            i += 1
        self.i = i

    def value(self, depth):
        self.ws()
        if self.i >= len(self.s):
            self.fail("unexpected end")
        c = self.s[self.i]
        if c == "{":
            return self.obj(depth + 1)
        if c == "[":
            return self.arr(depth + 1)
        if c == '"':
            return self.string()
        for lit, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(lit, self.i):
                self.i += len(lit)
                return val
        m = _NUMBER_RE.match(self.s, self.i)
        if m and m.end() > self.i:
            self.i = m.end()
            return JNum(m.group(0))
        self.fail("unexpected character")

    def obj(self, depth):
        if depth > self.max_depth:
            self.fail("nesting too deep")
        self.i += 1
        pairs, names, dups = [], set(), False
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "}":
            self.i += 1
            return JObj(pairs, False)
        while True:
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != '"':
                self.fail("expected member name")
            name = self.string()
            if name in names:
                if not self.record_dups:
                    self.fail("duplicate member name")
                dups = True
            names.add(name)
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != ":":
                self.fail("expected ':'")
            self.i += 1
            pairs.append((name, self.value(depth)))
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            if self.i < len(self.s) and self.s[self.i] == "}":
                self.i += 1
                return JObj(pairs, dups)
            self.fail("expected ',' or '}'")

    def arr(self, depth):
        if depth > self.max_depth:
            self.fail("nesting too deep")
        self.i += 1
        items = []
        self.ws()
        if self.i < len(self.s) and self.s[self.i] == "]":
            self.i += 1
            return items
        while True:
            items.append(self.value(depth))
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
                continue
            if self.i < len(self.s) and self.s[self.i] == "]":
                self.i += 1
                return items
            self.fail("expected ',' or ']'")

    def hex4(self):
        h = self.s[self.i:self.i + 4]
        if len(h) != 4 or any(c not in _HEX for c in h):
            self.fail("bad \\u escape")
        self.i += 4
        return int(h, 16)

    def string(self):
        s = self.s
        self.i += 1  # opening quote
        out = []
        while True:
            if self.i >= len(s):
                self.fail("unterminated string")
            c = s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if ord(c) < 0x20:
                self.fail("control character in string")
            if c != "\\":
                out.append(c)
                self.i += 1
                continue
            self.i += 1
            if self.i >= len(s):
                self.fail("unterminated escape")
            e = s[self.i]
            self.i += 1
            if e in _ESCAPES:
                out.append(_ESCAPES[e])
            elif e == "u":
                cp = self.hex4()
                if 0xDC00 <= cp <= 0xDFFF:
                    self.fail("lone low surrogate")
                if 0xD800 <= cp <= 0xDBFF:
                    if s[self.i:self.i + 2] != "\\u":
                        self.fail("lone high surrogate")
                    self.i += 2
                    lo = self.hex4()
                    if not 0xDC00 <= lo <= 0xDFFF:
                        self.fail("high surrogate not followed by low surrogate")
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                out.append(chr(cp))
            else:
                self.fail("invalid escape")


def parse_json(data: bytes, record_dups=False, max_depth=MAX_DEPTH):
    """Strict RFC 8259 parse of UTF-8 bytes. Raises JSONError."""
    try:
        text = data.decode("utf-8", errors="strict")  # rejects overlongs, surrogates, > U+10FFFF
    except UnicodeDecodeError as e:
        raise JSONError(f"invalid UTF-8: {e}") from None
    p = _Parser(text, record_dups, max_depth)
    v = p.value(0)
    p.ws()
    if p.i != len(text):
        p.fail("trailing data")
    return v


def to_plain(v):
    """Convert parsed JSON to plain Python (for the vector file)."""
    if isinstance(v, JObj):
        return {k: to_plain(x) for k, x in v.pairs}
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    if isinstance(v, JNum):
        if re.fullmatch(r"-?(0|[1-9][0-9]*)", v.raw):
            return int(v.raw)
        return float(v.raw)
    return v

# ---------------------------------------------------------------- content (SPEC §5)


class ContentError(Exception):
    pass


def _is_int_form(v, maximum):
    return (isinstance(v, JNum) and len(v.raw) <= 20 and re.fullmatch(r"0|[1-9][0-9]*", v.raw) is not None
            and int(v.raw) <= maximum)


def _str_bytes(v, lo, hi):
    return isinstance(v, str) and lo <= len(v.encode("utf-8")) <= hi


def validate_content(content: bytes) -> dict:
    """Parse and validate content bytes; returns the known fields. Raises ContentError."""
    if len(content) > MAX_CONTENT:
        raise ContentError("content longer than 4000 bytes")
    try:
        root = parse_json(content)
    except JSONError as e:
        raise ContentError(str(e)) from None
    if not isinstance(root, JObj):
        raise ContentError("top level is not an object")
    f = {k: v for k, v in root.pairs}
    out = {}
    for name in ("cid", "mid"):
        if name not in f or not _str_bytes(f[name], 1, 256):
            raise ContentError(f"{name} must be a string of 1-256 bytes")
        out[name] = f[name]
    if "ts" not in f or not _is_int_form(f["ts"], TS_MAX):
        raise ContentError("ts must be an integer 0...253402300799")
    out["ts"] = int(f["ts"].raw)
    if "body" in f:  # absent only in a content-free (wake-and-fetch) content, SPEC §9.5
        if not isinstance(f["body"], str):
            raise ContentError("body must be a string")
        out["body"] = f["body"]
    for name in ("title", "subtitle"):
        if name in f:
            if not isinstance(f[name], str):
                raise ContentError(f"{name} must be a string")
            out[name] = f[name]
    for name in ("thread", "category"):
        if name in f:
            if not _str_bytes(f[name], 1, 256):
                raise ContentError(f"{name} must be a string of 1-256 bytes")
            out[name] = f[name]
    if "sender" in f:
        s = f["sender"]
        if not isinstance(s, JObj):
            raise ContentError("sender must be an object")
        sf = {k: v for k, v in s.pairs}
        if "id" not in sf or not _str_bytes(sf["id"], 1, 256):
            raise ContentError("sender.id must be a string of 1-256 bytes")
        out["sender"] = {"id": sf["id"]}
        if "name" in sf:
            if not isinstance(sf["name"], str):
                raise ContentError("sender.name must be a string")
            out["sender"]["name"] = sf["name"]
    if "badge" in f:
        if not _is_int_form(f["badge"], BADGE_MAX):
            raise ContentError("badge must be an integer 0...2147483647")
        out["badge"] = int(f["badge"].raw)
    if "trunc" in f:
        if f["trunc"] is not True:
            raise ContentError("trunc must be true")
        out["trunc"] = True
    if "x" in f:
        x = f["x"]
        if not isinstance(x, JObj) or not all(isinstance(v, str) for _, v in x.pairs):
            raise ContentError("x must be an object of strings")
        out["x"] = {k: v for k, v in x.pairs}
    out["_unknown"] = [k for k in f if k not in (
        "cid", "mid", "ts", "title", "subtitle", "body", "sender", "thread", "category", "badge", "trunc", "x")]
    return out


def json_string(s: str) -> str:
    """Deterministic string encoding (SPEC §5.3)."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20:
            out.append({8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t"}.get(o, "\\u%04x" % o))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def encode_content(c: dict) -> bytes:
    """Deterministic compact encoding (SPEC §5.3)."""
    parts = [f'"cid":{json_string(c["cid"])}', f'"mid":{json_string(c["mid"])}', f'"ts":{c["ts"]}']
    for name in ("title", "subtitle"):
        if name in c:
            parts.append(f'"{name}":{json_string(c[name])}')
    if "body" in c:
        parts.append(f'"body":{json_string(c["body"])}')
    if "sender" in c:
        s = f'"id":{json_string(c["sender"]["id"])}'
        if "name" in c["sender"]:
            s += f',"name":{json_string(c["sender"]["name"])}'
        parts.append('"sender":{' + s + "}")
    for name in ("thread", "category"):
        if name in c:
            parts.append(f'"{name}":{json_string(c[name])}')
    if "badge" in c:
        parts.append(f'"badge":{c["badge"]}')
    if c.get("trunc"):
        parts.append('"trunc":true')
    if "x" in c:
        items = sorted(c["x"].items(), key=lambda kv: kv[0].encode("utf-8"))
        parts.append('"x":{' + ",".join(f"{json_string(k)}:{json_string(v)}" for k, v in items) + "}")
    return ("{" + ",".join(parts) + "}").encode("utf-8")

# ---------------------------------------------------------------- padding (SPEC §6)


def pad(content: bytes, block: int) -> bytes:
    if block < 1:
        raise ValueError("pad block must be >= 1")
    n = len(content) + 1
    padded = -(-n // block) * block
    return content + b"\x80" + bytes(padded - n)


def unpad(p: bytes):
    i = p.rfind(b"\x80")
    if i < 0 or any(p[i + 1:]):
        return None
    return p[:i]

# ---------------------------------------------------------------- envelope (SPEC §7)


def seal_padded(k: bytes, salt: bytes, plaintext: bytes) -> str:
    if len(k) != 32 or len(salt) != 24:
        raise ValueError("key must be 32 bytes and salt 24 bytes")
    header = bytes([VERSION]) + key_id(k) + salt
    ct = ChaCha20Poly1305(message_key(k, salt)).encrypt(ZERO_NONCE, plaintext, header)
    envelope = header + ct
    if len(envelope) > MAX_ENVELOPE:
        raise ValueError("envelope longer than 4096 bytes")
    return b64url_encode(envelope)


class Result:
    def __init__(self, reason=None, content=None, duplicate=False):
        self.reason = reason
        self.content = content  # unpadded content bytes when decrypted
        self.duplicate = duplicate

    @property
    def ok(self):
        return self.reason is None


def _locate(payload: bytes):
    """SPEC §10.1 + steps 1-2 (the duplicate part). Returns (reason, value)."""
    try:
        root = parse_json(payload, record_dups=True)
    except JSONError:
        return "not_sealed", None
    if not isinstance(root, JObj):
        return "not_sealed", None
    holder, members = root, root.get_all("pushseal")
    if not members:
        msgs = root.get_all("message")
        if len(msgs) == 1 and isinstance(msgs[0], JObj):
            datas = msgs[0].get_all("data")
            if len(datas) == 1 and isinstance(datas[0], JObj):
                holder, members = datas[0], datas[0].get_all("pushseal")
    if not members:
        return "not_sealed", None

    def other_dups(v):
        if isinstance(v, JObj):
            dups = v.dup_names()
            if v is holder:
                dups.discard("pushseal")
            return bool(dups) or any(other_dups(x) for _, x in v.pairs)
        if isinstance(v, list):
            return any(other_dups(x) for x in v)
        return False

    if other_dups(root):
        return "not_sealed", None
    if len(members) > 1:
        return "malformed_envelope", None
    return None, members[0]


def open_payload(payload: bytes, lookup, seen, now, max_age=DEFAULT_MAX_AGE,
                 max_future_skew=DEFAULT_MAX_FUTURE_SKEW) -> Result:
    """SPEC §10.2. lookup(kid) -> ("found", K, conversation) | ("not_found",) | ("locked",);
    seen(cid, mid) -> bool (and records the pair)."""
    reason, wire = _locate(payload)                                   # step 1 (+ duplicate sealed member)
    if reason:
        return Result(reason)
    if not isinstance(wire, str) or len(wire) > MAX_WIRE_CHARS:       # step 2
        return Result("malformed_envelope")
    env = b64url_decode(wire)
    if not env:
        return Result("malformed_envelope")
    if env[0] != VERSION:                                             # step 3
        return Result("unsupported_version")
    if not MIN_ENVELOPE <= len(env) <= MAX_ENVELOPE:                  # step 4
        return Result("malformed_envelope")
    kid, salt = env[1:17], env[17:41]
    found = lookup(kid)
    if found[0] == "not_found":                                       # step 5
        return Result("unknown_key")
    if found[0] != "found":                                           # step 6
        return Result("store_locked")
    _, k, conversation = found
    try:                                                              # step 7
        p = ChaCha20Poly1305(message_key(k, salt)).decrypt(ZERO_NONCE, env[HEADER_LEN:], env[:HEADER_LEN])
    except InvalidTag:
        return Result("authentication_failed")
    content = unpad(p)                                                # step 8
    if content is None:
        return Result("malformed_content")
    try:
        fields = validate_content(content)
    except ContentError:
        return Result("malformed_content")
    if fields["cid"].encode("utf-8") != conversation.encode("utf-8"):  # step 9
        return Result("conversation_mismatch")
    ts = fields["ts"]                                                 # step 10
    if now - ts > max_age or ts - now > max_future_skew:
        return Result("stale")
    return Result(None, content, seen(fields["cid"], fields["mid"]))  # step 11

# ---------------------------------------------------------------- vector runner (SPEC §12)


def default_vector_path() -> Path:
    return Path(__file__).resolve().parents[3] / "Vectors" / "pushseal-v1.json"


def _hex(t, name, length=None, nullable=True):
    v = t.get(name)
    if v is None:
        if nullable:
            return None
        raise ValueError(f"{name} missing")
    if not isinstance(v, str) or not re.fullmatch(r"(?:[0-9a-f]{2})*", v):
        raise ValueError(f"{name} is not lowercase hex")
    b = bytes.fromhex(v)
    if length is not None and len(b) != length:
        raise ValueError(f"{name} must be {length} bytes")
    return b


def _describe(r: Result):
    return "valid" if r.ok else f"invalid/{r.reason}"


def run_case(t: dict):
    """Returns a list of mismatch descriptions (empty = pass)."""
    errs = []
    key = _hex(t, "key", 32, nullable=False)
    kid = _hex(t, "kid", 16, nullable=False)
    conversation = t["conversation"]
    store = t["keyStore"]
    if store not in ("available", "locked"):
        raise ValueError("keyStore must be available or locked")
    previously_seen = t["previouslySeen"]
    now, max_age, skew = t["now"], t["maxAge"], t["maxFutureSkew"]
    for name, v in (("now", now), ("maxAge", max_age), ("maxFutureSkew", skew)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"{name} must be an integer")
    expected_result, expected_reason, expected_dup = t["result"], t["reason"], t["duplicate"]
    if expected_result not in ("valid", "invalid"):
        raise ValueError("result must be valid or invalid")
    if (expected_result == "valid") != (expected_reason is None):
        raise ValueError("result and reason disagree")
    if expected_reason is not None and expected_reason not in REASONS:
        raise ValueError(f"unknown reason code {expected_reason!r}")
    seal_key = _hex(t, "sealKey", 32)
    salt = _hex(t, "salt", 24)
    mk = _hex(t, "messageKey", 32)
    content_hex = _hex(t, "contentHex")
    plaintext_hex = _hex(t, "plaintextHex")
    pad_block = t.get("padBlock")

    derived_kid = key_id(key)
    if derived_kid != kid:
        errs.append(f"kid: derived {derived_kid.hex()} != vector {kid.hex()}")

    def lookup(want):
        if want != derived_kid:
            return ("not_found",)
        if store == "locked":
            return ("locked",)
        return ("found", key, conversation)

    for label, text in (("payload", t["payload"]), ("fcm", t.get("fcm"))):
        if text is None:
            continue
        r = open_payload(text.encode("utf-8"), lookup, lambda cid, mid: bool(previously_seen), now, max_age, skew)
        got = _describe(r)
        want = "valid" if expected_result == "valid" else f"invalid/{expected_reason}"
        if got != want:
            errs.append(f"{label}: expected {want}, got {got}")
        elif r.ok:
            if r.duplicate != expected_dup:
                errs.append(f"{label}: expected duplicate={expected_dup}, got {r.duplicate}")
            if content_hex is None or r.content != content_hex:
                errs.append(f"{label}: decrypted content {r.content.hex()} != contentHex")
        elif expected_dup:
            errs.append(f"{label}: invalid case expects duplicate=true")

    if mk is not None and seal_key is not None and salt is not None:
        d = message_key(seal_key, salt)
        if d != mk:
            errs.append(f"messageKey: derived {d.hex()} != vector {mk.hex()}")
    if t["resealable"]:
        if seal_key is None or salt is None or plaintext_hex is None or t.get("wire") is None:
            errs.append("resealable case lacks sealKey/salt/plaintextHex/wire")
        else:
            try:
                w = seal_padded(seal_key, salt, plaintext_hex)
                if w != t["wire"]:
                    errs.append(f"reseal: got {w} != wire {t['wire']}")
            except ValueError as e:
                errs.append(f"reseal: {e}")
    if expected_result == "valid" and pad_block is not None:
        if content_hex is None or plaintext_hex is None:
            errs.append("valid case with padBlock lacks contentHex/plaintextHex")
        elif pad(content_hex, pad_block) != plaintext_hex:
            errs.append(f"pad(contentHex, {pad_block}) != plaintextHex")
    if t.get("content") is not None and content_hex is not None:
        if t["content"].encode("utf-8", errors="surrogatepass") != content_hex:
            errs.append("content string != contentHex")
    return errs


def run_vectors(path: Path) -> int:
    try:
        raw = path.read_bytes()
    except OSError as e:
        print(f"pushseal_port.py: error: cannot read {path}: {e.strerror}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    try:
        doc = to_plain(parse_json(raw))
    except JSONError as e:
        print(f"pushseal_port.py: error: {path} is not strict JSON: {e}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    file_errors = []
    if not isinstance(doc, dict) or doc.get("schema") != "pushseal_v1_test_schema" or doc.get("schemaVersion") != 1:
        file_errors.append("file: schema is not pushseal_v1_test_schema version 1")
    tests = doc.get("tests") if isinstance(doc, dict) else None
    if not isinstance(tests, list):
        tests = []
    if isinstance(doc, dict) and doc.get("numberOfTests") != len(tests):
        file_errors.append(f"file: numberOfTests {doc.get('numberOfTests')} != {len(tests)} cases")
    ids = [t.get("tcId") for t in tests if isinstance(t, dict)]
    if len(set(ids)) != len(ids):
        file_errors.append("file: duplicate tcId")
    passed = failed = 0
    for t in tests:
        tc = t.get("tcId", "?") if isinstance(t, dict) else "?"
        try:
            errs = run_case(t)
        except (KeyError, ValueError, TypeError, AttributeError) as e:
            errs = [f"malformed case: {type(e).__name__}: {e}"]
        if errs:
            failed += 1
            for e in errs:
                print(f"FAIL tcId {tc}: {e}")
        else:
            passed += 1
    for e in file_errors:
        print(f"FAIL {e}")
    failed += len(file_errors)
    if not tests:
        print("FAIL file: no test cases found")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1

# ---------------------------------------------------------------- CLI (round trips with `pushseal`)


class Usage(Exception):
    pass


def _options(argv, names, flags=()):
    opts, i = {}, 0
    while i < len(argv):
        a = argv[i]
        if a in flags:
            opts[a] = True
            i += 1
        elif a in names and i + 1 < len(argv):
            opts[a] = argv[i + 1]
            i += 2
        else:
            raise Usage(f"unexpected argument {a!r}")
    return opts


def _int_opt(opts, name, default):
    if name not in opts:
        return default
    if not re.fullmatch(r"-?[0-9]+", opts[name]):
        raise Usage(f"{name} needs an integer")
    return int(opts[name])


def _key_opt(opts, name, length):
    if name not in opts:
        raise Usage(f"{name} is required")
    b = b64url_decode(opts[name])
    if b is None or len(b) != length:
        raise Usage(f"{name} must be {length} bytes in base64url without padding")
    return b


def _placeholder(payload: bytes) -> str:
    title, body = None, "New message"
    try:
        root = parse_json(payload, record_dups=True)
        alert = root.get("aps").get("alert")
        if isinstance(alert, str):
            body = alert
        elif isinstance(alert, JObj):
            if isinstance(alert.get("title"), str):
                title = alert.get("title")
            if isinstance(alert.get("body"), str):
                body = alert.get("body")
    except (JSONError, AttributeError):
        pass
    parts = ([f'"title":{json_string(title)}'] if title is not None else []) + [f'"body":{json_string(body)}']
    return "{" + ",".join(parts) + "}"


def cli_open(argv) -> int:
    opts = _options(argv, ("--key", "--conversation", "--now", "--max-age", "--max-future-skew"))
    key = _key_opt(opts, "--key", 32)
    if "--conversation" not in opts:
        raise Usage("--conversation is required")
    conversation = opts["--conversation"]
    now = _int_opt(opts, "--now", int(time.time()))
    max_age = _int_opt(opts, "--max-age", DEFAULT_MAX_AGE)
    skew = _int_opt(opts, "--max-future-skew", DEFAULT_MAX_FUTURE_SKEW)
    payload = sys.stdin.buffer.read()
    kid = key_id(key)
    r = open_payload(payload, lambda want: ("found", key, conversation) if want == kid else ("not_found",),
                     lambda cid, mid: False, now, max_age, skew)
    if r.ok:
        print('{"outcome":"decrypted","reason":null,"duplicate":%s,"content":%s}'
              % ("true" if r.duplicate else "false", r.content.decode("utf-8")))
        return 0
    print('{"outcome":"fallback","reason":"%s","duplicate":false,"content":%s}' % (r.reason, _placeholder(payload)))
    return 3


def cli_seal(argv) -> int:
    opts = _options(argv, ("--key", "--salt", "--pad-block"), flags=("--apns",))
    key = _key_opt(opts, "--key", 32)
    salt = _key_opt(opts, "--salt", 24) if "--salt" in opts else os.urandom(24)
    block = _int_opt(opts, "--pad-block", DEFAULT_PAD_BLOCK)
    if block < 1:
        raise Usage("--pad-block must be >= 1")
    try:
        fields = validate_content(sys.stdin.buffer.read().rstrip(b"\n"))
    except ContentError as e:
        print(f"pushseal_port.py: error: invalid content: {e}", file=sys.stderr)
        return 1
    if fields["_unknown"]:
        print(f"pushseal_port.py: warning: dropping unknown members {fields['_unknown']}", file=sys.stderr)
    content = encode_content(fields)
    if len(content) > MAX_CONTENT:
        print("pushseal_port.py: error: content longer than 4000 bytes", file=sys.stderr)
        return 1
    try:
        wire = seal_padded(key, salt, pad(content, block))
    except ValueError as e:
        print(f"pushseal_port.py: error: {e}", file=sys.stderr)
        return 1
    if "--apns" in opts:
        print('{"aps":{"alert":{"body":"New message"},"mutable-content":1,"thread-id":"%s"},"pushseal":"%s"}'
              % (b64url_encode(thread_id(key)), wire))
    else:
        print(wire)
    return 0


def main(argv) -> int:
    try:
        if argv and argv[0] == "open":
            return cli_open(argv[1:])
        if argv and argv[0] == "seal":
            return cli_seal(argv[1:])
        if argv and argv[0] in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if len(argv) > 1:
            raise Usage("expected at most one vector file")
        return run_vectors(Path(argv[0]) if argv else default_vector_path())
    except Usage as e:
        print(f"pushseal_port.py: error: {e}", file=sys.stderr)
        print("hint: pushseal_port.py --help", file=sys.stderr)
        return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
