"""HPKE (RFC 9180 A.2 base and auth) and key bundles through the public API: sealing, every
refusal reason in check order, idempotent install, and the installed key opening a notification."""

import json
import os
from pathlib import Path

import pytest

from pushseal import Content, Sealer, open_payload, vectors
from pushseal.bundle import (
    NO_EXPIRY, BundleError, BundleKeyStore, BundleReason, MemoryKeyStore, StoreLocked, device_key_id, open_bundle,
    parse_bundle, provider_key_id, seal_bundle,
)
from pushseal.hpke import HPKEError, derive_key_pair, open_auth, open_base, seal_auth, seal_base
from pushseal.wire import b64url_decode, b64url_encode, key_id


# The vendored external vectors (Vectors/external/, SHA-256 in its manifest.json), found like the
# repository's own files: PUSHSEAL_VECTORS (the Vectors directory) or this checkout's.
_VECTORS = Path(os.environ.get("PUSHSEAL_VECTORS", Path(__file__).resolve().parents[3]))


def _hpke_file() -> Path:
    return _VECTORS / "external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json"


def _wycheproof_x25519() -> Path:
    return _VECTORS / "external/wycheproof/x25519_test.json"


K = bytes(range(32))
OTHER_K = bytes(range(1, 33))
NOW = 1764400000
DEVICE_SK, DEVICE_PK = derive_key_pair(b"device" * 6)
PROVIDER_SK, PROVIDER_PK = derive_key_pair(b"provider" * 4)
STRANGER_SK, STRANGER_PK = derive_key_pair(b"stranger" * 4)


def bundle(**changes):
    args = dict(key=K, conversation="conv-1", epoch=2, not_after=NOW + 3600, provider_private_key=PROVIDER_SK,
                device_public_key=DEVICE_PK)
    args.update(changes)
    return seal_bundle(**args)


def reason(text, store=None, now=NOW, device_sk=DEVICE_SK, pinned=(PROVIDER_PK,)):
    with pytest.raises(BundleError) as e:
        open_bundle(text, device_sk, list(pinned), store if store is not None else MemoryKeyStore(), now)
    assert "conv-1" not in str(e.value) and K.hex() not in str(e.value)
    return e.value.reason


BUNDLES = Path(os.environ.get("PUSHSEAL_VECTORS", Path(__file__).resolve().parents[3])) / "pushseal-v1-bundles.json"


def test_the_bundle_vectors_pass(capsys):
    assert vectors.run_file(BUNDLES) == (json.loads(BUNDLES.read_text())["numberOfTests"], 0), capsys.readouterr().out


def test_a_changed_bundle_vector_is_caught(tmp_path, capsys):
    doc = json.loads(BUNDLES.read_text())
    case = next(t for t in doc["tests"] if t["resealable"] and t["result"] == "valid")
    case["hpkeKey"] = case["hpkeKey"][:-2] + ("00" if case["hpkeKey"][-2:] != "00" else "01")
    (tmp_path / "b.json").write_text(json.dumps(doc))
    assert vectors.run_file(tmp_path / "b.json")[1] == 1
    assert "hpkeKey differs" in capsys.readouterr().out


def test_rfc9180_a2_base_and_auth_pass():
    doc = json.loads(_hpke_file().read_text())
    assert vectors.run_file(_hpke_file()) == (2, 0)
    assert {v["mode"] for v in doc["vectors"]} >= {0, 2}


def test_x25519_passes_wycheproof_and_refuses_every_all_zero_result():
    from pushseal.hpke import x25519
    doc = json.loads(_wycheproof_x25519().read_text())
    cases = [t for g in doc["testGroups"] for t in g["tests"]]
    assert len(cases) == doc["numberOfTests"] == 518
    refused = 0
    for t in cases:
        sk, pk = bytes.fromhex(t["private"]), bytes.fromhex(t["public"])
        if "ZeroSharedSecret" in t["flags"]:
            with pytest.raises(HPKEError) as e:
                x25519(sk, pk)
            assert e.value.code == "zero_shared_secret", t["tcId"]
            refused += 1
        else:  # valid, and acceptable (twist, non-canonical public keys): RFC 7748 computes them
            assert x25519(sk, pk).hex() == t["shared"], t["tcId"]
    assert refused == 31


def test_hpke_single_shot_round_trips_and_refuses_changes():
    enc, ct = seal_base(DEVICE_PK, b"info", b"aad", b"secret")
    assert open_base(enc, DEVICE_SK, b"info", b"aad", ct) == b"secret"
    enc, ct = seal_auth(DEVICE_PK, PROVIDER_SK, b"info", b"aad", b"secret")
    assert open_auth(enc, DEVICE_SK, PROVIDER_PK, b"info", b"aad", ct) == b"secret"
    for bad in ((enc, DEVICE_SK, STRANGER_PK, b"info", b"aad", ct), (enc, DEVICE_SK, PROVIDER_PK, b"inf0", b"aad", ct),
                (enc, DEVICE_SK, PROVIDER_PK, b"info", b"aaD", ct), (enc, STRANGER_SK, PROVIDER_PK, b"info", b"aad", ct)):
        with pytest.raises(HPKEError) as e:
            open_auth(*bad)
        assert e.value.code == "open_failed"


@pytest.mark.parametrize("point", [bytes(32), (1).to_bytes(32, "little"),
                                   bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")])
def test_the_all_zero_shared_secret_is_refused(point):
    with pytest.raises(HPKEError) as e:
        seal_base(point, b"", b"", b"x")
    assert e.value.code == "zero_shared_secret"
    with pytest.raises(HPKEError) as e:
        open_base(point, DEVICE_SK, b"", b"", bytes(16))
    assert e.value.code == "zero_shared_secret"


def test_a_bundle_installs_and_its_key_opens_a_notification():
    text = bundle()
    data = b64url_decode(text)
    assert data is not None and len(data) == 145 + len("conv-1")
    header, b, enc, ct = parse_bundle(text)
    assert header.provider_key_id == provider_key_id(PROVIDER_PK) and header.device_key_id == device_key_id(DEVICE_PK)
    assert (header.epoch, header.not_after, header.kid) == (2, NOW + 3600, key_id(K))
    assert b"conv-1" not in data  # the conversation id is sealed
    assert b == header.encode() and len(b) == 65 and len(enc) == 32 and len(ct) == 32 + 6 + 16
    store = MemoryKeyStore()
    first = open_bundle(text, DEVICE_SK, [STRANGER_PK, PROVIDER_PK], store, NOW)
    assert not first.already_installed and first.conversation == "conv-1" and store.key_for("conv-1", 2) == K
    again = open_bundle(bundle(), DEVICE_SK, [PROVIDER_PK], store, NOW)  # another ephemeral key, same K
    assert again.already_installed and again.header == header
    sealed = Sealer().seal_apns(Content("conv-1", "m-1", NOW, body="after rotation"), K)
    assert open_payload(sealed.body, store, clock=lambda: NOW).content.body == "after rotation"


def test_no_expiry_and_the_expiry_boundary():
    assert parse_bundle(bundle(not_after=None))[0].not_after == NO_EXPIRY
    assert not open_bundle(bundle(not_after=None), DEVICE_SK, [PROVIDER_PK], MemoryKeyStore(), (1 << 64) - 1).already_installed
    open_bundle(bundle(not_after=NOW), DEVICE_SK, [PROVIDER_PK], MemoryKeyStore(), NOW)
    assert reason(bundle(not_after=NOW), now=NOW + 1) is BundleReason.BUNDLE_EXPIRED


@pytest.mark.parametrize("text", ["", "!!!", "AQ=", "AB", b64url_encode(b"\x01" * 145), b64url_encode(b"\x01" * 48),
                                  b64url_encode(b"\x01" + bytes(400)), "AQ" + "A" * 534])
def test_malformed_bundles(text):
    assert reason(text) is BundleReason.MALFORMED_BUNDLE


@pytest.mark.parametrize("text", ["AAAA", "Ag", b64url_encode(b"\x02" + bytes(400))])
def test_another_version_is_unsupported_whatever_its_length(text):
    assert reason(text) is BundleReason.UNSUPPORTED_BUNDLE_VERSION


def _edit(text, at, value):
    data = bytearray(b64url_decode(text))
    data[at] = value
    return b64url_encode(bytes(data))


def test_each_check_in_order():
    text = bundle()
    data = b64url_decode(text)
    assert reason(text + "!") is BundleReason.MALFORMED_BUNDLE  # not base64url
    assert reason(b64url_encode(data[:145])) is BundleReason.MALFORMED_BUNDLE  # no room for a conversation id
    assert reason(_edit(text, 40, 0)) is BundleReason.MALFORMED_BUNDLE  # epoch 0
    assert reason(_edit(text, 33, 0x80)) is BundleReason.MALFORMED_BUNDLE  # epoch above 2^63 - 1
    assert reason(_edit(text, 41, 0x80)) is BundleReason.MALFORMED_BUNDLE  # notAfter above 2^63 - 1, not all-ones
    assert reason(bundle(not_after=None)[:-1] + "!") is BundleReason.MALFORMED_BUNDLE
    assert reason(_edit(text, 0, 2)) is BundleReason.UNSUPPORTED_BUNDLE_VERSION
    assert reason(_edit(_edit(text, 0, 2), 17, 0)) is BundleReason.UNSUPPORTED_BUNDLE_VERSION  # version before device
    assert reason(text, device_sk=STRANGER_SK) is BundleReason.WRONG_DEVICE
    assert reason(text, pinned=(STRANGER_PK,)) is BundleReason.UNKNOWN_PROVIDER
    assert reason(text, pinned=()) is BundleReason.UNKNOWN_PROVIDER
    assert reason(_edit(text, 40, data[40] ^ 1)) is BundleReason.BUNDLE_AUTHENTICATION_FAILED  # epoch (aad)
    assert reason(_edit(text, len(data) - 1, data[-1] ^ 1)) is BundleReason.BUNDLE_AUTHENTICATION_FAILED  # tag
    assert reason(_edit(text, 65, data[65] ^ 1)) is BundleReason.BUNDLE_AUTHENTICATION_FAILED  # enc
    assert reason(_edit(text, 97, data[97] ^ 1)) is BundleReason.BUNDLE_AUTHENTICATION_FAILED  # sealed K
    assert reason(b64url_encode(data + b"\x00")) is BundleReason.BUNDLE_AUTHENTICATION_FAILED  # a longer cid
    assert reason(b64url_encode(data[:-1])) is BundleReason.BUNDLE_AUTHENTICATION_FAILED  # a shorter cid
    # A bundle sealed by a key whose id a pinned key shares cannot exist; a forged one by the
    # stranger under the pinned provider's id fails authentication:
    forged = bytearray(b64url_decode(bundle(provider_private_key=STRANGER_SK)))
    forged[1:17] = provider_key_id(PROVIDER_PK)
    assert reason(b64url_encode(bytes(forged))) is BundleReason.BUNDLE_AUTHENTICATION_FAILED
    assert reason(bundle(not_after=NOW - 1)) is BundleReason.BUNDLE_EXPIRED


def test_kid_mismatch_needs_an_authentic_bundle_with_another_kid():
    from pushseal.bundle import BUNDLE_INFO, BundleHeader
    from pushseal.hpke import setup_sender
    header = BundleHeader(provider_key_id(PROVIDER_PK), device_key_id(DEVICE_PK), 2, NOW + 3600, key_id(OTHER_K)).encode()
    enc, ctx = setup_sender(DEVICE_PK, BUNDLE_INFO, sk_s=PROVIDER_SK)
    assert reason(b64url_encode(header + enc + ctx.seal(header, K + b"conv-1"))) is BundleReason.KID_MISMATCH


def test_a_sealed_conversation_id_that_is_not_utf8_is_malformed_after_opening():
    from pushseal.bundle import BUNDLE_INFO, BundleHeader
    from pushseal.hpke import setup_sender
    header = BundleHeader(provider_key_id(PROVIDER_PK), device_key_id(DEVICE_PK), 2, NOW + 3600, key_id(K)).encode()
    enc, ctx = setup_sender(DEVICE_PK, BUNDLE_INFO, sk_s=PROVIDER_SK)
    text = b64url_encode(header + enc + ctx.seal(header, K + b"conv-\xff"))
    assert reason(text) is BundleReason.MALFORMED_BUNDLE
    assert reason(text, device_sk=STRANGER_SK) is BundleReason.WRONG_DEVICE  # the header checks come first


def test_conflicting_keys_are_refused_and_nothing_is_installed():
    store = MemoryKeyStore()
    store.install("conv-1", 2, OTHER_K, NO_EXPIRY)
    assert reason(bundle(), store) is BundleReason.CONFLICTING_KEY
    store = MemoryKeyStore()
    store.install("conv-1", 1, K, NO_EXPIRY)  # the same key under another epoch
    assert reason(bundle(), store) is BundleReason.CONFLICTING_KEY
    store = MemoryKeyStore()
    store.install("conv-2", 2, K, NO_EXPIRY)  # under another conversation
    assert reason(bundle(), store) is BundleReason.CONFLICTING_KEY
    assert store.key_for("conv-1", 2) is None


def test_a_locked_store_is_store_locked():
    class Locked(BundleKeyStore):
        def key_for(self, conversation, epoch):
            raise StoreLocked()

    assert reason(bundle(), Locked()) is BundleReason.STORE_LOCKED
    assert reason(bundle(not_after=NOW - 1), Locked()) is BundleReason.BUNDLE_EXPIRED  # the store is asked last


@pytest.mark.parametrize("change", [dict(key=bytes(31)), dict(epoch=0), dict(epoch=1 << 63), dict(not_after=1 << 63),
                                    dict(not_after=(1 << 64) - 2), dict(conversation="a\ud800"), dict(conversation=""),
                                    dict(conversation="x" * 257), dict(not_after=-1), dict(device_public_key=bytes(31))])
def test_seal_refuses_invalid_arguments(change):
    with pytest.raises(ValueError):
        bundle(**change)


def test_seal_refuses_a_small_order_device_key():
    with pytest.raises(HPKEError):
        bundle(device_public_key=bytes(32))


def test_a_registration_round_trips_and_bad_ones_are_refused():
    from pushseal import RegistrationError, device_registration, registration_public_key
    text = device_registration(DEVICE_PK)
    assert text == ('{"suite":"pushseal-v1-x25519","deviceKeyId":"' + b64url_encode(device_key_id(DEVICE_PK))
                    + '","publicKey":"' + b64url_encode(DEVICE_PK) + '"}')
    assert registration_public_key(text) == DEVICE_PK
    assert registration_public_key(text[:-1] + ',"token":"x"}') == DEVICE_PK  # other members are ignored
    other_id = b64url_encode(device_key_id(STRANGER_PK))
    for bad in ["", "[]", text.replace("x25519", "x448"), text.replace(b64url_encode(device_key_id(DEVICE_PK)), other_id),
                text.replace(b64url_encode(DEVICE_PK), b64url_encode(DEVICE_PK[:31])), text[:-1] + ',"suite":"pushseal-v1-x25519"}',
                text.replace('"publicKey":"', '"publicKey":"=')]:
        with pytest.raises(RegistrationError):
            registration_public_key(bad)


def _largest_complete_body(sealer, options_for):
    """The longest ASCII body that still seals complete (not truncated) with these options."""
    lo, hi = 1, 4000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        sealed = sealer(Content("conv-1", "m-1", NOW, body="x" * mid), K, options_for)
        lo, hi = (mid, hi) if sealed.path == "complete" else (lo, mid - 1)
    return lo


def test_an_in_band_bundle_is_counted_first_and_sits_next_to_the_envelope():
    from pushseal import APNsOptions, FCMOptions
    text = bundle()
    plain, carrying = APNsOptions(), APNsOptions(key_bundle=text)
    sealer = Sealer().seal_apns
    sealed = sealer(Content("conv-1", "m-1", NOW, body="hi"), K, carrying)
    body = sealed.body.decode()
    assert body.endswith(f'"pushseal":"{sealed.wire}","pushseal-bundle":"{text}"}}')
    assert sealed.sizes.limited == sealed.sizes.payload == len(sealed.body)
    assert json.loads(body)["pushseal-bundle"] == text
    store = MemoryKeyStore()
    open_bundle(json.loads(body)["pushseal-bundle"], DEVICE_SK, [PROVIDER_PK], store, NOW)
    assert open_payload(sealed.body, store, clock=lambda: NOW).content.body == "hi"  # the receiver ignores the member
    # The body that just fits without the bundle is truncated to make room for it, within 4096 bytes.
    n = _largest_complete_body(sealer, plain)
    assert sealer(Content("conv-1", "m-1", NOW, body="x" * n), K, plain).path == "complete"
    squeezed = sealer(Content("conv-1", "m-1", NOW, body="x" * n), K, carrying)
    assert squeezed.path == "truncated" and len(squeezed.body) <= 4096
    assert _largest_complete_body(sealer, carrying) < n


def test_an_in_band_bundle_in_an_fcm_message():
    from pushseal import FCMOptions
    text = bundle()
    sealed = Sealer().seal_fcm(Content("conv-1", "m-1", NOW, body="hi"), K, FCMOptions("tok", key_bundle=text))
    message = json.loads(sealed.body)
    assert list(message["message"]["data"]) == ["pushseal", "pushseal-bundle"]
    assert message["message"]["data"]["pushseal-bundle"] == text
    assert sealed.sizes.limited == len("pushseal") + len(sealed.wire) + len("pushseal-bundle") + len(text)


def test_an_in_band_bundle_must_carry_the_sealing_key():
    from pushseal import APNsOptions, SealError
    for text, detail in ((bundle(key=OTHER_K), "the bundle carries key"), ("AQ", "malformed_bundle")):
        with pytest.raises(SealError) as e:
            Sealer().seal_apns(Content("conv-1", "m-1", NOW, body="hi"), K, APNsOptions(key_bundle=text))
        assert e.value.code == "invalid_option" and detail in e.value.detail
