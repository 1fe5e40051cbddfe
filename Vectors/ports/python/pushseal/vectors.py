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
from typing import Any, Dict, List, Tuple

from cryptography.hazmat.primitives import constant_time

from . import key_vectors
from .bundle import device_key, device_key_id, provider_key_id
from .content import Content
from .errors import OpenError, Reason, SealError
from .hpke import public_key
from .provider import APNsOptions, FCMOptions, LocalizedPlaceholder, OPAQUE, Sealer, TextPlaceholder
from .receiver import KEY_LOCKED, KEY_NOT_FOUND, KeyFound, Receiver
from .strictjson import JSONError, parse_json, to_plain
from .wire import b64url_decode, key_id, message_key, opaque_thread_id, open_envelope, pad, seal_envelope
from .wire import b64url_encode, unpad

RECEIVER_SCHEMA = "pushseal_v1_test_schema"
PROVIDER_SCHEMA = "pushseal_v1_provider_test_schema"
STORE_SCHEMA = "pushseal_v1_store_test_schema"
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
    retire_by, handed_kid = t["keyRetireBy"], _hex(t, "keySourceKid", 16)
    if retire_by is not None and (not isinstance(retire_by, int) or isinstance(retire_by, bool)):
        raise ValueError("keyRetireBy must be an integer or null")
    expected_fetch, expected_trunc = t["requiresFetch"], t["truncated"]
    if not isinstance(expected_fetch, bool) or not isinstance(expected_trunc, bool):
        raise ValueError("requiresFetch and truncated must be booleans")
    derived_kid = key_id(key)
    if derived_kid != kid:
        errs.append(f"kid: derived {derived_kid.hex()} != vector {kid.hex()}")
    index_kid = handed_kid if handed_kid is not None else derived_kid

    class Source:
        def lookup(self, want: bytes) -> Any:
            if want != index_kid:
                return KEY_NOT_FOUND
            return KEY_LOCKED if store == "locked" else KeyFound(key, conversation, retire_by)

    differs, expected_conflict = t["previousEnvelopeDiffers"], t["conflict"]
    if not isinstance(differs, bool) or not isinstance(expected_conflict, bool):
        raise ValueError("previousEnvelopeDiffers and conflict must be booleans")

    def record(cid: str, mid: str, envelope: bytes) -> str:
        # The log holds (cid, mid) with this envelope, or with another one.
        if not previously_seen:
            return "first"
        return "conflict" if differs else "duplicate"

    receiver = Receiver(Source(), max_age=max_age, max_future_skew=skew, clock=lambda: now, record=record)
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
            if opened.conflict != expected_conflict:
                errs.append(f"{label}: expected conflict={expected_conflict}, got {opened.conflict}")
            if opened.requires_fetch != expected_fetch or opened.truncated != expected_trunc:
                errs.append(f"{label}: expected requiresFetch={expected_fetch} truncated={expected_trunc}, "
                            f"got {opened.requires_fetch} {opened.truncated}")
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


# The option members of each transport. Any other member makes the case malformed, so a runner
# that does not know an option fails the case instead of sealing without it.
_OPTION_MEMBERS = {
    "apns": {"placeholder", "sound", "threadId", "plainThreadId", "category", "interruptionLevel", "relevanceScore", "keyBundle"},
    "fcm": {"token", "priority", "ttl", "keyBundle"},
}


def _options(transport: str, o: Dict[str, Any]) -> Any:
    if transport not in _OPTION_MEMBERS:
        raise ValueError(f"unknown transport {transport!r}")
    unknown = sorted(set(o) - _OPTION_MEMBERS[transport])
    if unknown:
        raise ValueError(f"unknown {transport} option {', '.join(unknown)}")
    bundle = o.get("keyBundle")
    if bundle is not None and not isinstance(bundle, str):
        raise ValueError("keyBundle must be a string")
    if transport == "fcm":
        return FCMOptions(o["token"], o["priority"], o["ttl"], key_bundle=bundle)
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
                       o.get("relevanceScore"), key_bundle=bundle)


def run_provider_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one provider case (empty: it passes)."""
    errs: List[str] = []
    key, salt = _hex(t, "key", 32, nullable=False), _hex(t, "salt", 24, nullable=False)
    conversation_key, device = _hex(t, "conversationKey", 32), _hex(t, "deviceKeyId", 16)
    if conversation_key is not None and device is not None and device_key(conversation_key, device) != key:
        errs.append("key is not the device key of conversationKey and deviceKeyId")
    if _hex(t, "kid", 16, nullable=False) != key_id(key):
        errs.append("kid differs")
    if t["threadId"] != opaque_thread_id(key):
        errs.append("threadId differs")
    content = Content.from_mapping(t["input"], validate=False)
    options = _options(t["transport"], t["options"])
    try:
        sealer = Sealer(t["padBlock"])
        if conversation_key is not None and device is not None:  # sealed per device, from K and the device key id
            sealed = (sealer.seal_fcm_for_device if t["transport"] == "fcm" else sealer.seal_apns_for_device)(
                content, conversation_key, device, options, test_salt=salt)
        else:
            sealed = (sealer.seal_fcm if t["transport"] == "fcm" else sealer.seal_apns)(content, key, options,
                                                                                        test_salt=salt)
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


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def _i64(n: int) -> bytes:
    return (n & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")


def _hmac(key: bytes, message: bytes) -> bytes:
    import hmac
    import hashlib
    return hmac.new(key, message, hashlib.sha256).digest()


def _at_rest_seal(row_key: bytes, ad: bytes, secret: bytes) -> bytes:
    """ChaCha20-Poly1305(row key, nonce = 12 zero bytes, aad = AD, secret): a sealed row after its
    format byte and salt (Docs/KEY-STORE.md §3.2, §3.6)."""
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    return ChaCha20Poly1305(row_key).encrypt(bytes(12), secret, ad)


def _at_rest_open(row_key: bytes, ad: bytes, sealed: bytes) -> Any:
    """The secret of ``_at_rest_seal``'s output, or None when it does not authenticate."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    try:
        return ChaCha20Poly1305(row_key).decrypt(bytes(12), sealed, ad)
    except InvalidTag:
        return None


def run_store_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one key-store case (Docs/KEY-STORE.md §3; empty: it passes)."""
    mk = _hex(t, "masterKey", 32, nullable=False)
    def expand(info: bytes) -> bytes:
        return _hmac(mk, info + b"\x01")  # HKDF-Expand(MK, info, 32)
    kind = t["kind"]
    if kind in ("identity", "providerKeyRecord"):
        return _run_store_identity_case(t, expand)
    if kind == "item":
        key, kid, salt = _hex(t, "key", 32, False), _hex(t, "kid", 16, False), _hex(t, "salt", 24, False)
        cid, label, not_after = t["conversation"].encode("utf-8"), t["label"], t["notAfter"]
        ad = (b"\x02" + key_id(key) + _i64(t["epoch"]) + _i64(t["createdAt"])
              + (b"\x00" + _i64(0) if not_after is None else b"\x01" + _i64(not_after))
              + _u32(len(cid)) + cid
              + (b"\x00" + _u32(0) if label is None else b"\x01" + _u32(len(label.encode("utf-8"))) + label.encode("utf-8")))
        sealed = b"\x02" + salt + _at_rest_seal(expand(b"pushseal v1 store item" + salt), ad, key)
        errs = [] if key_id(key) == kid else ["kid differs"]
        errs += [] if _hex(t, "associatedDataHex") == ad else ["associatedDataHex differs"]
        return errs + ([] if _hex(t, "sealedHex") == sealed else ["sealedHex differs"])
    if kind == "verifier":
        salt = _hex(t, "salt", 24, False)
        verifier = b"\x01" + salt + expand(b"pushseal v1 store verifier" + salt)
        return [] if _hex(t, "verifierHex") == verifier else ["verifierHex differs"]
    if kind == "delivery":
        lk = expand(b"pushseal v1 store delivery log")
        cid, mid = t["conversation"].encode("utf-8"), t["messageId"].encode("utf-8")
        tag = _hmac(lk, _u32(len(cid)) + cid + _u32(len(mid)) + mid)
        envelope_tag = _hmac(lk, b"\x02" + _hex(t, "envelopeHex", None, False))
        errs = [] if _hex(t, "tagHex") == tag else ["tagHex differs"]
        errs += [] if _hex(t, "envelopeTagHex") == envelope_tag else ["envelopeTagHex differs"]
        # Its mark in the duplicate-log file (Docs/KEY-STORE.md §2.1): a 128-byte slot whose last
        # 8 bytes are SHA-256 of the first 120, at index = first 8 bytes of the tag mod the slot count.
        import hashlib
        log_id = _hmac(lk, b"pushseal v1 delivery log id")
        body = b"\x01\x01" + bytes(6) + _i64(t["seenAt"]) + tag + envelope_tag + bytes(40)
        slot = body + hashlib.sha256(body).digest()[:8]
        header = (b"PSDL" + _u32(1) + _i64(t["slotCount"]) + _i64(0) + _i64(0) + _i64(-(1 << 63)) + log_id + bytes(48))
        header += hashlib.sha256(header).digest()[:8]
        errs += [] if _hex(t, "logIdHex") == log_id else ["logIdHex differs"]
        errs += [] if t["slotIndex"] == int.from_bytes(tag[:8], "big") % t["slotCount"] else ["slotIndex differs"]
        errs += [] if _hex(t, "slotHex") == slot and _hex(t, "checkHex") == slot[120:] else ["slotHex differs"]
        return errs + ([] if _hex(t, "emptyLogHeaderHex") == header else ["emptyLogHeaderHex differs"])
    if kind == "epochRecord":
        rk = expand(b"pushseal v1 store epoch record")
        cid = t["conversation"].encode("utf-8")
        message = (b"\x01" + _u32(len(cid)) + cid + _i64(t["epoch"]) + _hex(t, "kid", 16, False)
                   + (b"\x01" if t["removed"] is True else b"\x00"))
        return [] if _hex(t, "tagHex") == _hmac(rk, message) else ["tagHex differs"]
    raise ValueError(f"unknown kind {kind!r}")


_IDENTITY_TAGS = {"device": 1, "provider": 2, "pinned": 3, "registered": 4}


def _read_identity(kind: str, row_id: bytes, pk: bytes, ad: bytes, sealed: bytes, expand: Any) -> Any:
    """An identity row read back as the store reads it (Docs/KEY-STORE.md §3.6, §3.7): its secret
    (the private key, or b"" for a pinned key or a registered device), or None when the store
    refuses the row (id not its public key's, malformed blob, no authentication, or a private key
    that does not give the public key)."""
    has_private_key = kind in ("device", "provider")
    if row_id != (device_key_id(pk) if kind in ("device", "registered") else provider_key_id(pk)):
        return None
    if len(sealed) != 1 + 24 + (32 if has_private_key else 0) + 16 or sealed[0] != 0x03:
        return None
    secret = _at_rest_open(expand(b"pushseal v1 store identity" + sealed[1:25]), ad, sealed[25:])
    if secret is None or (has_private_key and public_key(secret) != pk):
        return None
    return secret


def _run_store_identity_case(t: Dict[str, Any], expand: Any) -> List[str]:
    """Mismatches of one ``identity`` or ``providerKeyRecord`` case (Docs/KEY-STORE.md §3.6, §3.7)."""
    result = t["result"]
    if result not in ("valid", "invalid"):
        raise ValueError("result must be valid or invalid")
    if t["kind"] == "providerKeyRecord":
        rk = expand(b"pushseal v1 store epoch record")
        kid, value = _hex(t, "kid", 16, False), _hex(t, "valueHex", None, False)
        verifies = len(value) == 48 and constant_time.bytes_eq(value[16:], _hmac(rk, b"\x03" + value[:16]))
        if result == "invalid":
            return ["the record verifies but must not"] if verifies else []
        return [] if verifies and value == kid + _hmac(rk, b"\x03" + kid) else ["valueHex differs"]
    kind = t["identityKind"]
    if kind not in _IDENTITY_TAGS:
        raise ValueError(f"unknown identityKind {kind!r}")
    pk, row_id, salt = _hex(t, "publicKey", 32, False), _hex(t, "id", 16, False), _hex(t, "salt", 24, False)
    sk = _hex(t, "privateKey", 32, kind in ("pinned", "registered"))
    ad = b"\x03" + bytes([_IDENTITY_TAGS[kind]]) + row_id + pk + _i64(t["createdAt"])
    if kind == "registered":
        ad += b"\x00" if t["revokedAt"] is None else b"\x01" + _i64(t["revokedAt"])
    errs = [] if _hex(t, "associatedDataHex") == ad else ["associatedDataHex differs"]
    sealed = _hex(t, "sealedHex", None, False)
    opened = _read_identity(kind, row_id, pk, ad, sealed, expand)
    if result == "invalid":
        return errs + ([] if opened is None else ["the row opens but must not"])
    if opened is None:
        return errs + ["the row does not open"]
    if kind in ("device", "provider") and opened != sk:
        errs.append("the opened private key differs")
    resealed = b"\x03" + salt + _at_rest_seal(expand(b"pushseal v1 store identity" + salt), ad, sk or b"")
    return errs + ([] if sealed == resealed else ["sealedHex differs"])


def run_file(path: Path) -> Tuple[int, int]:
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
              STORE_SCHEMA: run_store_case, key_vectors.BUNDLE_SCHEMA: key_vectors.run_bundle_case,
              key_vectors.DEVICE_KEY_SCHEMA: key_vectors.run_device_key_case}.get(str(schema))
    versions = {RECEIVER_SCHEMA: 2, PROVIDER_SCHEMA: 1, STORE_SCHEMA: 1, key_vectors.BUNDLE_SCHEMA: 2,
                key_vectors.DEVICE_KEY_SCHEMA: 1}
    if runner is None or doc.get("schemaVersion") != versions.get(str(schema)):
        print(f"FAIL file {path}: schema is not {RECEIVER_SCHEMA} version 2, {PROVIDER_SCHEMA} version 1, "
              f"{STORE_SCHEMA} version 1, {key_vectors.BUNDLE_SCHEMA} version 2 or {key_vectors.DEVICE_KEY_SCHEMA} "
              "version 1, nor the RFC 9180 file")
        return 0, 1
    return _run_cases(path, doc, runner, doc.get("tests"), doc.get("numberOfTests"))


def _run_cases(path: Path, doc: Any, runner: Any, tests: Any, expected_count: Any) -> Tuple[int, int]:
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
