"""Vector checks for key delivery, used by ``pushseal.vectors``: the RFC 9180 Appendix A.2 file
(base and auth modes of DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) and the
key bundle vectors (``pushseal_v1_bundle_test_schema``)."""

from __future__ import annotations

from typing import Any, Dict, List

from .bundle import BUNDLE_INFO, BundleError, MemoryKeyStore, device_key_id, open_bundle, provider_key_id, seal_bundle
from .hpke import MODE_AUTH, MODE_BASE, HPKEError, derive_key_pair, public_key, setup_receiver, setup_sender
from .wire import b64url_decode

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
    for e in v["encryptions"]:
        seq, aad, pt, ct = e["seq"], _b(e, "aad"), _b(e, "pt"), _b(e, "ct")
        if sender.nonce(seq) != _b(e, "nonce"):
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


def run_bundle_case(t: Dict[str, Any]) -> List[str]:
    """Mismatches of one key bundle case: the key pairs and key ids, the re-seal of the bundle from
    its inputs and ``ikmE`` (byte for byte, with the HPKE intermediates), and the outcome of opening
    it with the case's device key, pinned providers, store and clock."""
    errs: List[str] = []
    device_sk, device_pk = _b(t, "devicePrivateKey"), _b(t, "devicePublicKey")
    provider_sk, provider_pk = _b(t, "providerPrivateKey"), _b(t, "providerPublicKey")
    for name, sk, pk in (("device", device_sk, device_pk), ("provider", provider_sk, provider_pk)):
        if public_key(sk) != pk:
            errs.append(f"{name} public key differs")
    if device_key_id(device_pk).hex() != t["deviceKeyId"]:
        errs.append("deviceKeyId differs")
    if provider_key_id(provider_pk).hex() != t["providerKeyId"]:
        errs.append("providerKeyId differs")
    key, ikm_e = _b(t, "key"), _b(t, "ikmE")
    if t.get("sealed", True):
        text = seal_bundle(key, t["conversation"], t["epoch"], t["notAfter"], provider_sk, device_pk, test_ikm_e=ikm_e)
        if text != t["bundle"]:
            errs.append("re-sealed bundle differs from bundle")
        header = b64url_decode(text) or b""
        header = header[:len(header) - 80]
        enc, ctx = setup_sender(device_pk, BUNDLE_INFO, sk_s=provider_sk, test_ikm_e=ikm_e)
        for name, got in (("aadHex", header), ("encHex", enc), ("sharedSecret", ctx.shared_secret),
                          ("hpkeKey", ctx.key), ("baseNonce", ctx.base_nonce)):
            if t.get(name) != got.hex():
                errs.append(f"{name} differs")
    store = MemoryKeyStore()
    for s in t.get("storedKeys", []):
        store.install(s["conversation"], s["epoch"], _b(s, "key"), s.get("notAfter", 0))
    pinned = [bytes.fromhex(p) for p in t["pinnedProviderKeys"]]
    want = f"valid/{t['outcome']}" if t["result"] == "valid" else f"invalid/{t['reason']}"
    try:
        installed = open_bundle(t["bundle"], device_sk, pinned, store, t["now"])
        got = "valid/" + ("already_installed" if installed.already_installed else "installed")
    except BundleError as e:
        got = f"invalid/{e.reason.value}"
    if got != want:
        errs.append(f"expected {want}, got {got}")
    elif t["result"] == "valid" and store.key_for(t["conversation"], t["epoch"]) != key:
        errs.append("the key is not in the store after opening")
    return errs
