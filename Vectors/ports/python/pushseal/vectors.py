"""The vector runner: ``python -m pushseal.vectors FILE…`` (or ``pushseal-vectors-python``).

Runs receiver vectors (``pushseal_v1_test_schema``, SPEC §12), provider vectors
(``pushseal_v1_provider_test_schema``, Vectors/README.md), key bundle vectors
(``pushseal_v1_bundle_test_schema``) and the RFC 9180 HPKE file (its base and auth vectors)
through this package. Prints one
``FAIL tcId N: …`` line per mismatch and ``N passed, N failed``; exits 1 on any failure, on a
file that is missing or in neither schema, or when no case ran."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Dict, List

from . import key_vectors
from .content import Content
from .errors import OpenError, Reason, SealError
from .provider import APNsOptions, FCMOptions, LocalizedPlaceholder, OPAQUE, Sealer, TextPlaceholder
from .receiver import KEY_LOCKED, KEY_NOT_FOUND, KeyFound, Receiver
from .strictjson import JSONError, parse_json, to_plain
from .wire import b64url_decode, key_id, message_key, opaque_thread_id, open_envelope, pad, seal_envelope
from .wire import b64url_encode, unpad

RECEIVER_SCHEMA = "pushseal_v1_test_schema"
PROVIDER_SCHEMA = "pushseal_v1_provider_test_schema"
_PROG = "pushseal.vectors"


def _hex(t: Dict[str, Any], name: str, length: Any = None, nullable: bool = True) -> Any:
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


def run_receiver_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one receiver case (empty: it passes)."""
    errs: List[str] = []
    key = _hex(t, "key", 32, nullable=False)
    kid = _hex(t, "kid", 16, nullable=False)
    conversation, store, previously_seen = t["conversation"], t["keyStore"], t["previouslySeen"]
    if store not in ("available", "locked"):
        raise ValueError("keyStore must be available or locked")
    now, max_age, skew = t["now"], t["maxAge"], t["maxFutureSkew"]
    expected_result, expected_reason, expected_dup = t["result"], t["reason"], t["duplicate"]
    if (expected_result == "valid") != (expected_reason is None) or expected_result not in ("valid", "invalid"):
        raise ValueError("result and reason disagree")
    if expected_reason is not None:
        Reason(expected_reason)
    seal_key, salt, mk = _hex(t, "sealKey", 32), _hex(t, "salt", 24), _hex(t, "messageKey", 32)
    content_hex, plaintext_hex, pad_block = _hex(t, "contentHex"), _hex(t, "plaintextHex"), t.get("padBlock")
    derived_kid = key_id(key)
    if derived_kid != kid:
        errs.append(f"kid: derived {derived_kid.hex()} != vector {kid.hex()}")

    class Source:
        def lookup(self, want: bytes) -> Any:
            if want != derived_kid:
                return KEY_NOT_FOUND
            return KEY_LOCKED if store == "locked" else KeyFound(key, conversation)

    receiver = Receiver(Source(), max_age=max_age, max_future_skew=skew, clock=lambda: now,
                        seen=lambda cid, mid: bool(previously_seen))
    want = "valid" if expected_result == "valid" else f"invalid/{expected_reason}"
    for label, text in (("payload", t["payload"]), ("fcm", t.get("fcm"))):
        if text is None:
            continue
        try:
            opened = receiver.open(text.encode("utf-8"))
            got = "valid"
        except OpenError as e:
            opened, got = None, f"invalid/{e.reason.value}"
        if got != want:
            errs.append(f"{label}: expected {want}, got {got}")
        elif opened is not None:
            if opened.duplicate != expected_dup:
                errs.append(f"{label}: expected duplicate={expected_dup}, got {opened.duplicate}")
            if opened.content_bytes != content_hex:
                errs.append(f"{label}: decrypted content differs from contentHex")
    if mk is not None and seal_key is not None and salt is not None and message_key(seal_key, salt) != mk:
        errs.append("messageKey differs")
    if t["resealable"]:
        if seal_key is None or salt is None or plaintext_hex is None or t.get("wire") is None:
            errs.append("resealable case lacks sealKey/salt/plaintextHex/wire")
        else:
            try:
                if b64url_encode(seal_envelope(seal_key, salt, plaintext_hex)) != t["wire"]:
                    errs.append("reseal differs from wire")
            except ValueError as e:
                errs.append(f"reseal: {e}")
    if expected_result == "valid" and pad_block is not None:
        if content_hex is None or plaintext_hex is None or pad(content_hex, pad_block) != plaintext_hex:
            errs.append(f"pad(contentHex, {pad_block}) != plaintextHex")
    if t.get("content") is not None and content_hex is not None:
        if t["content"].encode("utf-8", errors="surrogatepass") != content_hex:
            errs.append("content string != contentHex")
    envelope = b64url_decode(t["wire"]) if isinstance(t.get("wire"), str) else None
    envelope = envelope or None
    expected = {
        "envelopeHex": envelope,
        "headerHex": envelope[:41] if envelope is not None and len(envelope) >= 41 else None,
        "tagHex": envelope[-16:] if envelope is not None and len(envelope) >= 58 else None,
    }
    for name, value in expected.items():
        if _hex(t, name) != value:
            errs.append(f"{name} differs")
    if t.get("threadId") != (opaque_thread_id(seal_key) if seal_key is not None else None):
        errs.append("threadId differs")
    return errs


def _options(transport: str, o: Dict[str, Any]) -> Any:
    if transport == "fcm":
        return FCMOptions(o["token"], o["priority"], o["ttl"])
    if transport != "apns":
        raise ValueError(f"unknown transport {transport!r}")
    p = o["placeholder"]
    if "locKey" in p:
        placeholder: Any = LocalizedPlaceholder(p["locKey"], tuple(p.get("locArgs", ())), p.get("titleLocKey"),
                                                tuple(p.get("titleLocArgs", ())))
    else:
        placeholder = TextPlaceholder(p["body"], p.get("title"))
    thread = {"opaque": OPAQUE, "omitted": None}.get(o["threadId"], o.get("plainThreadId"))
    if o["threadId"] not in ("opaque", "omitted", "plain"):
        raise ValueError("threadId must be opaque, omitted or plain")
    return APNsOptions(placeholder, o.get("sound"), thread, o.get("category"), o.get("interruptionLevel"),
                       o.get("relevanceScore"))


def run_provider_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one provider case (empty: it passes)."""
    errs: List[str] = []
    key, salt = _hex(t, "key", 32, nullable=False), _hex(t, "salt", 24, nullable=False)
    if _hex(t, "kid", 16, nullable=False) != key_id(key):
        errs.append("kid differs")
    if t["threadId"] != opaque_thread_id(key):
        errs.append("threadId differs")
    content = Content.from_mapping(t["input"], validate=False)
    options = _options(t["transport"], t["options"])
    try:
        sealer = Sealer(t["padBlock"])
        sealed = (sealer.seal_fcm if t["transport"] == "fcm" else sealer.seal_apns)(content, key, options, test_salt=salt)
    except SealError as e:
        if t["result"] != "error" or t.get("error") != e.code:
            errs.append(f"expected {t['result']} {t.get('error') or ''}, got error {e.code}")
        return errs
    if t["result"] != "sealed":
        return errs + [f"expected error {t.get('error')}, got a payload"]
    if sealed.text != t["payload"]:
        errs.append("payload differs")
    if sealed.path != t["path"]:
        errs.append(f"path: expected {t['path']}, got {sealed.path}")
    envelope = b64url_decode(sealed.wire) or b""
    plaintext = open_envelope(key, envelope) or b""
    content_bytes = unpad(plaintext)
    if content_bytes != sealed.content.encode():
        errs.append("sealed content does not open to the planned content")
    expected = {
        "wire": sealed.wire, "contentHex": sealed.content.encode().hex(), "plaintextHex": plaintext.hex(),
        "envelopeHex": envelope.hex(), "headerHex": envelope[:41].hex(), "tagHex": envelope[-16:].hex(),
        "messageKey": message_key(key, salt).hex(), "content": sealed.content.encode().decode("utf-8"),
    }
    for name, value in expected.items():
        if t.get(name) != value:
            errs.append(f"{name} differs")
    s = sealed.sizes
    got_sizes = {"content": s.content, "padded": s.padded, "envelope": s.envelope, "wire": s.wire,
                 "payload": s.payload, "limited": s.limited, "limit": s.limit}
    if t.get("sizes") != got_sizes:
        errs.append(f"sizes: expected {t.get('sizes')}, got {got_sizes}")
    return errs


def run_file(path: Path) -> tuple:
    """Runs one file; returns (passed, failed) after printing its FAIL lines."""
    try:
        doc = to_plain(parse_json(path.read_bytes(), max_depth=64))
    except OSError as e:
        print(f"FAIL file {path}: cannot read: {e.strerror}")
        return 0, 1
    except JSONError as e:
        print(f"FAIL file {path}: not strict JSON: {e}")
        return 0, 1
    if key_vectors.is_hpke_file(doc):
        cases = key_vectors.hpke_cases(doc)
        return _run_cases(path, doc, key_vectors.run_hpke_case, cases, len(cases))
    schema = doc.get("schema") if isinstance(doc, dict) else None
    runner = {RECEIVER_SCHEMA: run_receiver_case, PROVIDER_SCHEMA: run_provider_case,
              key_vectors.BUNDLE_SCHEMA: key_vectors.run_bundle_case}.get(str(schema))
    if runner is None or doc.get("schemaVersion") != 1:
        print(f"FAIL file {path}: schema is not {RECEIVER_SCHEMA}, {PROVIDER_SCHEMA} or {key_vectors.BUNDLE_SCHEMA}"
              " version 1, nor the RFC 9180 file")
        return 0, 1
    return _run_cases(path, doc, runner, doc.get("tests"), doc.get("numberOfTests"))


def _run_cases(path: Path, doc: Any, runner: Any, tests: Any, expected_count: Any) -> tuple:
    """Runs the cases; returns (passed, failed) after printing their FAIL lines."""
    if not isinstance(tests, list) or not tests:
        print(f"FAIL file {path}: no test cases found")
        return 0, 1
    passed = failed = 0
    if expected_count != len(tests):
        print(f"FAIL file {path}: numberOfTests {expected_count} != {len(tests)} cases")
        failed += 1
    for t in tests:
        tc = t.get("tcId", t.get("mode", "?")) if isinstance(t, dict) else "?"
        try:
            errs = runner(t)
        except (KeyError, ValueError, TypeError, AttributeError) as e:
            errs = [f"malformed case: {type(e).__name__}: {e}"]
        if errs:
            failed += 1
            for message in errs:
                print(f"FAIL tcId {tc}: {message}")
        else:
            passed += 1
    return passed, failed


def main(argv: List[str] = sys.argv[1:]) -> int:
    """Entry point; returns the exit status."""
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 64
    passed = failed = 0
    for name in argv:
        p, f = run_file(Path(name))
        passed, failed = passed + p, failed + f
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
