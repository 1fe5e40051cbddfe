"""Vector checks for key delivery, used by ``pushseal.vectors``: the RFC 9180 Appendix A.2 file
(base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) the key
bundle vectors (``pushseal_v1_bundle_test_schema``, format 2) and the device key derivation vectors
(``pushseal_v1_device_key_test_schema``)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .bundle import (
    BUNDLE_INFO, BundleError, BundleKeyStore, BundleReason, ConversationRecord, MemoryKeyStore, StoreLocked, device_key,
    device_key_id, open_bundle, parse_bundle, provider_key_id, seal_bundle,
)
from .hpke import MODE_AUTH, MODE_BASE, HPKEError, derive_key_pair, public_key, setup_receiver, setup_sender
from .wire import b64url_decode, key_id, opaque_thread_id

DEVICE_KEY_INFO = b"pushseal v1 device conversation key"

__all__ = ["HPKE_SUITE", "BUNDLE_SCHEMA", "DEVICE_KEY_SCHEMA", "run_device_key_case", "is_hpke_file", "hpke_cases", "run_hpke_case", "run_bundle_case"]

BUNDLE_SCHEMA = "pushseal_v1_bundle_test_schema"
DEVICE_KEY_SCHEMA = "pushseal_v1_device_key_test_schema"

HPKE_SUITE = {"kem_id": 32, "kdf_id": 1, "aead_id": 3}


def is_hpke_file(doc: Any) -> bool:
    """The RFC 9180 vector file of this suite (it has no ``schema`` member)."""
    return isinstance(doc, dict) and doc.get("suite") == HPKE_SUITE and isinstance(doc.get("vectors"), list)


def hpke_cases(doc: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The base and auth vectors of the file (the psk modes are not implemented)."""
    return [v for v in doc["vectors"] if isinstance(v, dict) and v.get("mode") in (MODE_BASE, MODE_AUTH)]


def _b(v: Dict[str, Any], name: str) -> bytes:
    return bytes.fromhex(v[name])


def run_hpke_case(v: Dict[str, Any]) -> List[str]:
    """Mismatches of one base or auth vector: DeriveKeyPair of every key, encap (enc, shared
    secret), decap, every key-schedule value on both sides, every encryption (seal and open) and
    export."""
    errs: List[str] = []
    mode = v["mode"]
    if mode not in (MODE_BASE, MODE_AUTH):
        raise ValueError(f"mode {mode} is not base or auth")
    pairs = [("E", "ikmE", "skEm", "pkEm"), ("R", "ikmR", "skRm", "pkRm")]
    if mode == MODE_AUTH:
        pairs.append(("S", "ikmS", "skSm", "pkSm"))
    for who, ikm, sk, pk in pairs:
        if derive_key_pair(_b(v, ikm)) != (_b(v, sk), _b(v, pk)):
            errs.append(f"DeriveKeyPair(ikm{who}) differs from ({sk}, {pk})")
    sk_s = _b(v, "skSm") if mode == MODE_AUTH else None
    pk_s = _b(v, "pkSm") if mode == MODE_AUTH else None
    info = _b(v, "info")
    enc, sender = setup_sender(_b(v, "pkRm"), info, sk_s=sk_s, test_ikm_e=_b(v, "ikmE"))
    if enc != _b(v, "enc"):
        errs.append("enc differs")
    try:
        receiver = setup_receiver(_b(v, "enc"), _b(v, "skRm"), info, pk_s=pk_s)
    except HPKEError as e:
        return errs + [f"setup_receiver: {e.code}"]
    for side, ctx in (("sender", sender), ("receiver", receiver)):
        for name, got in (("shared_secret", ctx.shared_secret), ("key_schedule_context", ctx.key_schedule_context),
                          ("secret", ctx.secret), ("key", ctx.key), ("base_nonce", ctx.base_nonce),
                          ("exporter_secret", ctx.exporter_secret)):
            if got != _b(v, name):
                errs.append(f"{side}: {name} differs")
    for encryption in v["encryptions"]:
        seq, aad, pt, ct = encryption["seq"], _b(encryption, "aad"), _b(encryption, "pt"), _b(encryption, "ct")
        if sender.nonce(seq) != _b(encryption, "nonce"):
            errs.append(f"seq {seq}: nonce differs")
        if sender.seal(aad, pt, seq) != ct:
            errs.append(f"seq {seq}: seal differs from ct")
        try:
            if receiver.open(aad, ct, seq) != pt:
                errs.append(f"seq {seq}: open differs from pt")
        except HPKEError:
            errs.append(f"seq {seq}: open failed")
        try:
            receiver.open(aad + b"\x00", ct, seq)
            errs.append(f"seq {seq}: open accepted a changed aad")
        except HPKEError:
            pass
    for x in v["exports"]:
        if receiver.export(_b(x, "exporter_context"), x["L"]) != _b(x, "exported_value"):
            errs.append(f"export {x['exporter_context']!r} differs")
    return errs


class _LockedStore(BundleKeyStore):
    def key_for(self, conversation: str, epoch: int) -> Optional[Tuple[bytes, Optional[int]]]:
        raise StoreLocked()

    def location_of(self, kid: bytes) -> Optional[Tuple[str, int]]:
        raise StoreLocked()

    def record(self, conversation: str) -> Optional[ConversationRecord]:
        raise StoreLocked()


def _record_json(r: Optional[ConversationRecord]) -> Optional[Dict[str, int]]:
    return None if r is None else {"highWater": r.high_water, "highWaterSince": r.high_water_since,
                                   "purgedThrough": r.purged_through}


def run_device_key_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one device key case (SPEC §4.4): K_d, its kid and thread-id from K and the device key id."""
    errs: List[str] = []
    k, d = _b(t, "conversationKey"), _b(t, "deviceKeyId")
    if t.get("devicePublicKey") is not None and device_key_id(_b(t, "devicePublicKey")) != d:
        errs.append("deviceKeyId differs")
    if key_id(k).hex() != t["conversationKid"]:
        errs.append("conversationKid differs")
    if (DEVICE_KEY_INFO + d).hex() != t["info"]:
        errs.append("info differs")
    kd = device_key(k, d)
    for name, got in (("deviceKey", kd.hex()), ("kid", key_id(kd).hex()), ("threadId", opaque_thread_id(kd))):
        if got != t[name]:
            errs.append(f"{name} differs")
    return errs


def run_bundle_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one key bundle case (SPEC §16.8): the key pairs, key ids, K_d and kid; the
    plaintext; the re-seal of resealable cases byte for byte; the intermediates (aad, enc, ct, and the
    device's HPKE context); and the outcome of the checks with the case's device key, pinned keys,
    clock, envelope kid, store and conversation record, with the not-after times and the record after."""
    errs: List[str] = []
    device, provider = t["deviceKeyPair"], t["providerKeyPair"]
    device_sk, device_pk = _b(device, "private"), _b(device, "public")
    provider_sk, provider_pk = _b(provider, "private"), _b(provider, "public")
    k = _b(t, "conversationKey")
    for name, derived, expected in (("deviceKeyPair", public_key(device_sk), device_pk),
                                    ("providerKeyPair", public_key(provider_sk), provider_pk),
                                    ("deviceKeyId", device_key_id(device_pk), _b(t, "deviceKeyId")),
                                    ("providerKeyId", provider_key_id(provider_pk), _b(t, "providerKeyId"))):
        if derived != expected:
            errs.append(f"{name} differs")
    if t["resealable"]:
        if device_key(k, device_key_id(device_pk)) != _b(t, "deviceKey") or key_id(_b(t, "deviceKey")) != _b(t, "kid"):
            errs.append("deviceKey or kid differs from the derivation")
        resealed = seal_bundle(k, device_pk, t["conversation"], t["epoch"], t["since"], t["retireBy"], t["expires"],
                               provider_sk, test_ikm_e=_b(t, "ikmE"))
        if resealed != t["bundle"]:
            errs.append("re-sealed bundle differs from bundle")
    text = t["bundle"]
    decoded = b64url_decode(text) if isinstance(text, str) else None
    # SPEC §16.8: the strict base64url decoding (any length), None (null) when the text is not strict base64url.
    if "bundleHex" not in t or t["bundleHex"] != (None if decoded is None else decoded.hex()):
        errs.append("bundleHex differs from the decoded bundle")
    result, outcome, reason = t["result"], t.get("outcome"), t.get("reason")
    if result == "valid" and outcome in ("installed", "installed_retired", "already_installed") and reason is None:
        want = f"valid/{outcome}"
    elif result == "invalid" and reason is not None and outcome is None:
        want = f"invalid/{BundleReason(reason).value}"
    else:
        raise ValueError("result, outcome and reason disagree")
    # The intermediates, from the device's side: B, enc and ct once the length checks pass; the HPKE
    # context and the plaintext once it opens the bundle (step 5 passes).
    parsed: Optional[Tuple[bytes, bytes, bytes]] = None
    try:
        parsed = parse_bundle(text)
    except BundleError:
        pass
    for name, index in (("aad", 0), ("enc", 1), ("ct", 2)):
        if t.get(name) != (None if parsed is None else parsed[index].hex()):
            errs.append(f"{name} differs")
    context, pt = None, None
    if parsed is not None:
        sender = next((p for p in (bytes.fromhex(x) for x in t["pinnedProviderKeys"])
                       if provider_key_id(p) == parsed[0][1:17]), None)
        if sender is not None:
            try:
                context = setup_receiver(parsed[1], device_sk, BUNDLE_INFO, pk_s=sender)
                pt = context.open(parsed[0], parsed[2])
            except HPKEError:
                context = None
    for name, value in (("sharedSecret", None if context is None else context.shared_secret),
                        ("hpkeKey", None if context is None else context.key),
                        ("baseNonce", None if context is None else context.base_nonce)):
        if t.get(name) != (None if value is None else value.hex()):
            errs.append(f"{name} differs")
    if pt is not None and pt.hex() != t["plaintext"]:
        errs.append("plaintext differs")
    # The checks.
    if t["keyStore"] not in ("available", "locked"):
        raise ValueError("keyStore must be available or locked")
    memory = MemoryKeyStore()
    for s in t["storedKeys"]:
        memory.install(s["conversation"], s["epoch"], _b(s, "key"), s["notAfter"], s["createdAt"])
    r = t["conversationRecord"]
    if r is not None:
        memory.set_record(t["conversation"], ConversationRecord(r["highWater"], r["highWaterSince"], r["purgedThrough"]))
    store: BundleKeyStore = _LockedStore() if t["keyStore"] == "locked" else memory
    envelope_kid = None if t["envelopeKid"] is None else _b(t, "envelopeKid")
    installed = None
    try:
        installed = open_bundle(text, device_sk, [bytes.fromhex(x) for x in t["pinnedProviderKeys"]], store, t["now"],
                                envelope_kid=envelope_kid)
        got = f"valid/{installed.outcome}"
    except BundleError as e:
        got = f"invalid/{e.reason.value}"
    if got != want:
        return errs + [f"expected {want}, got {got}"]
    if installed is None:
        return errs
    stored = memory.key_for(t["conversation"], t["epoch"])
    if stored is None or stored[0] != _b(t, "deviceKey"):
        errs.append("the key is not in the store after opening")
    elif stored[1] != t["notAfter"] or installed.not_after != t["notAfter"]:
        errs.append(f"notAfter: expected {t['notAfter']}, got {stored[1]}")
    created = memory.created_at(t["conversation"], t["epoch"])
    if t["outcome"] != "already_installed" and created != t["createdAt"]:
        errs.append(f"createdAt: expected {t['createdAt']}, got {created}")
    if installed.retire_earlier_at != t["retireEarlierAt"]:
        errs.append(f"retireEarlierAt: expected {t['retireEarlierAt']}, got {installed.retire_earlier_at}")
    after = _record_json(memory.record(t["conversation"]))
    if after != t["conversationRecordAfter"] or _record_json(installed.record) != after:
        errs.append(f"conversationRecordAfter: expected {t['conversationRecordAfter']}, got {after}")
    for s in t["storedKeys"]:  # every earlier epoch retired at retireEarlierAt (9e)
        if s["conversation"] == t["conversation"] and s["epoch"] < t["epoch"] and t["retireEarlierAt"] is not None:
            want_na = t["retireEarlierAt"] if s["notAfter"] is None else min(s["notAfter"], t["retireEarlierAt"])
            got_na = (memory.key_for(s["conversation"], s["epoch"]) or (b"", None))[1]
            if got_na != want_na:
                errs.append(f"epoch {s['epoch']} not-after: expected {want_na}, got {got_na}")
    return errs
