"""Vector checks for key delivery, used by ``pushseal.vectors``: the RFC 9180 Appendix A.2 file
(base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) and the
key bundle vectors (``pushseal_v1_bundle_test_schema``)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .bundle import (
    BUNDLE_INFO, NO_EXPIRY, BundleError, BundleKeyStore, BundleReason, MemoryKeyStore, StoreLocked, device_key_id, open_bundle,
    parse_bundle, provider_key_id, seal_bundle,
)
from .hpke import MODE_AUTH, MODE_BASE, HPKEError, derive_key_pair, public_key, setup_receiver, setup_sender
from .wire import b64url_decode, key_id

__all__ = ["HPKE_SUITE", "BUNDLE_SCHEMA", "is_hpke_file", "hpke_cases", "run_hpke_case", "run_bundle_case"]

BUNDLE_SCHEMA = "pushseal_v1_bundle_test_schema"

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
    def key_for(self, conversation: str, epoch: int) -> Optional[bytes]:
        raise StoreLocked()

    def location_of(self, kid: bytes) -> Optional[Tuple[str, int]]:
        raise StoreLocked()

    def install(self, conversation: str, epoch: int, key: bytes, not_after: int) -> None:
        raise StoreLocked()


def run_bundle_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one key bundle case (SPEC §16.8): the key pairs, key ids and kid; the re-seal
    of resealable cases byte for byte; the intermediates (aad, enc, ct, and the device's HPKE context);
    and the outcome of the checks with the case's device key, pinned keys, clock and store."""
    errs: List[str] = []
    device, provider = t["deviceKeyPair"], t["providerKeyPair"]
    device_sk, device_pk = _b(device, "private"), _b(device, "public")
    provider_sk, provider_pk = _b(provider, "private"), _b(provider, "public")
    key = _b(t, "key")
    for name, derived, expected in (("deviceKeyPair", public_key(device_sk), device_pk),
                            ("providerKeyPair", public_key(provider_sk), provider_pk),
                            ("deviceKeyId", device_key_id(device_pk), _b(t, "deviceKeyId")),
                            ("providerKeyId", provider_key_id(provider_pk), _b(t, "providerKeyId")),
                            ("kid", key_id(key), _b(t, "kid"))):
        if derived != expected:
            errs.append(f"{name} differs")
    text = t["bundle"]
    if (b64url_decode(text) or b"").hex() != (t.get("bundleHex") or ""):
        errs.append("bundleHex differs from the decoded bundle")
    if t["resealable"]:
        resealed = seal_bundle(key, t["conversation"], t["epoch"], t["notAfter"], provider_sk, device_pk,
                               test_ikm_e=_b(t, "ikmE"))
        if resealed != text:
            errs.append("re-sealed bundle differs from bundle")
    result, outcome, reason = t["result"], t.get("outcome"), t.get("reason")
    if result == "valid":
        want = f"valid/{outcome}"
    elif result == "invalid" and reason is not None:
        want = f"invalid/{BundleReason(reason).value}"
    else:
        raise ValueError("result, outcome and reason disagree")
    # The intermediates, from the device's side: B, enc and ct once the header parses; the HPKE
    # context once it opens the bundle (step 6 passes).
    parsed: Optional[Tuple[Any, bytes, bytes, bytes]] = None
    try:
        parsed = parse_bundle(text)
    except BundleError:
        pass
    for name, index in (("aad", 1), ("enc", 2), ("ct", 3)):
        if t.get(name) != (None if parsed is None else parsed[index].hex()):
            errs.append(f"{name} differs")
    context = None
    if parsed is not None and parsed[0].device_key_id == device_key_id(device_pk):
        sender = next((k for k in (bytes.fromhex(x) for x in t["pinnedProviderKeys"])
                       if provider_key_id(k) == parsed[0].provider_key_id), None)
        if sender is not None:
            try:
                context = setup_receiver(parsed[2], device_sk, BUNDLE_INFO, pk_s=sender)
                context.open(parsed[1], parsed[3])
            except HPKEError:
                context = None
    for name, value in (("sharedSecret", None if context is None else context.shared_secret),
                        ("hpkeKey", None if context is None else context.key),
                        ("baseNonce", None if context is None else context.base_nonce)):
        if t.get(name) != (None if value is None else value.hex()):
            errs.append(f"{name} differs")
    # The checks.
    if t["keyStore"] not in ("available", "locked"):
        raise ValueError("keyStore must be available or locked")
    memory = MemoryKeyStore()
    for s in t["storedKeys"]:
        memory.install(s["conversation"], s["epoch"], _b(s, "key"), NO_EXPIRY)
    store: BundleKeyStore = _LockedStore() if t["keyStore"] == "locked" else memory
    try:
        installed = open_bundle(text, device_sk, [bytes.fromhex(k) for k in t["pinnedProviderKeys"]], store, t["now"])
        got = "valid/" + ("already_installed" if installed.already_installed else "installed")
    except BundleError as e:
        got = f"invalid/{e.reason.value}"
    if got != want:
        errs.append(f"expected {want}, got {got}")
    elif result == "valid" and memory.key_for(t["conversation"], t["epoch"]) != key:
        errs.append("the key is not in the store after opening")
    return errs
