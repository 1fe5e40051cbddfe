"""HPKE (RFC 9180 A.2 base and auth), device keys and key bundles format 2 through the public API:
sealing, every refusal reason in check order, the installation rules (high-water, step cap,
tombstones, retired installs), and the installed device key opening a notification sealed per device."""

import json
import os
from pathlib import Path

import pytest

from pushseal import Content, Sealer, open_payload, vectors
from pushseal.bundle import (
    BUNDLE_BYTES, BundleError, BundleKeyStore, BundleReason, ConversationRecord, MemoryKeyStore, StoreLocked, device_key,
    device_key_id, open_bundle, parse_bundle, provider_key_id, seal_bundle,
)
from pushseal.hpke import setup_sender
from pushseal.hpke import HPKEError, derive_key_pair, open_auth, open_base, seal_auth, seal_base
from pushseal.wire import b64url_decode, b64url_encode, key_id, opaque_thread_id


# The vendored external vectors (Vectors/external/, SHA-256 in its manifest.json), found like the
# repository's own files: PUSHSEAL_VECTORS (the Vectors directory) or this checkout's.
_VECTORS = Path(os.environ.get("PUSHSEAL_VECTORS", Path(__file__).resolve().parents[3]))


def _hpke_file() -> Path:
    return _VECTORS / "external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json"


def _wycheproof_x25519() -> Path:
    return _VECTORS / "external/wycheproof/x25519_test.json"


K = bytes(range(32))  # the provider's conversation key: never on a device
OTHER_K = bytes(range(1, 33))
NOW = 1764400000
SINCE = NOW - 86400
DEVICE_SK, DEVICE_PK = derive_key_pair(b"device" * 6)
TABLET_SK, TABLET_PK = derive_key_pair(b"tablet" * 6)
PROVIDER_SK, PROVIDER_PK = derive_key_pair(b"provider" * 4)
STRANGER_SK, STRANGER_PK = derive_key_pair(b"stranger" * 4)
KD = device_key(K, device_key_id(DEVICE_PK))  # the device's key
BUNDLES = Path(os.environ.get("PUSHSEAL_VECTORS", Path(__file__).resolve().parents[3])) / "pushseal-v1-bundles.json"


def bundle(k=K, **changes):
    args = dict(device_public_key=DEVICE_PK, conversation="conv-1", epoch=2, since=SINCE, retire_by=None,
                expires=NOW + 3600, provider_private_key=PROVIDER_SK)
    args.update(changes)
    return seal_bundle(k, **args)


def reason(text, store=None, now=NOW, device_sk=DEVICE_SK, pinned=(PROVIDER_PK,), envelope_kid=None):
    store = store if store is not None else MemoryKeyStore()
    with pytest.raises(BundleError) as e:
        open_bundle(text, device_sk, list(pinned), store, now, envelope_kid=envelope_kid)
    assert "conv-1" not in str(e.value) and K.hex() not in str(e.value) and KD.hex() not in str(e.value)
    return e.value.reason


def install(text, store, now=NOW, **kw):
    return open_bundle(text, DEVICE_SK, [PROVIDER_PK], store, now, **kw)


def _raw(pt, provider_sk=PROVIDER_SK, device_pk=DEVICE_PK, version=2):
    """A bundle of any plaintext, sealed as the provider would (for the range checks after opening)."""
    header = bytes([version]) + provider_key_id(derive_key_pair(b"provider" * 4)[1] if provider_sk is PROVIDER_SK
                                               else STRANGER_PK)
    enc, ctx = setup_sender(device_pk, b"pushseal v1 key bundle 2", sk_s=provider_sk)
    return b64url_encode(header + enc + ctx.seal(header, pt))


def _pt(key=KD, kid=None, epoch=2, since=SINCE, retire_by=(1 << 64) - 1, expires=NOW + 3600, cid=b"conv-1", n=None,
        pad=b""):
    cid_field = (cid + pad).ljust(256, b"\x00")[:256]
    return (key + (key_id(key) if kid is None else kid) + epoch.to_bytes(8, "big") + since.to_bytes(8, "big")
            + retire_by.to_bytes(8, "big") + expires.to_bytes(8, "big") + (len(cid) if n is None else n).to_bytes(2, "big")
            + cid_field)


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


def test_the_device_key_is_hkdf_expand_of_k_and_the_device_key_id():
    import hmac, hashlib
    d = device_key_id(DEVICE_PK)
    info = b"pushseal v1 device conversation key" + d
    assert len(info) == 51
    assert KD == hmac.new(K, info + b"\x01", hashlib.sha256).digest()
    tablet = device_key(K, device_key_id(TABLET_PK))
    assert tablet != KD and key_id(tablet) != key_id(KD) and opaque_thread_id(tablet) != opaque_thread_id(KD)
    assert key_id(KD) != key_id(K) and device_key(OTHER_K, d) != KD
    for bad in ((bytes(31), d), (K, d[:15]), (K, d + b"x")):
        with pytest.raises(ValueError):
            device_key(*bad)


def test_the_device_vectors_pass(capsys):
    assert vectors.main([str(BUNDLES.parent / "pushseal-v1-devices.json")]) == 0
    assert "6 passed, 0 failed" in capsys.readouterr().out


def test_a_bundle_delivers_the_device_key_and_it_opens_a_notification_sealed_per_device():
    text = bundle()
    assert len(text) == 538 and len(b64url_decode(text)) == BUNDLE_BYTES
    assert b64url_decode(text)[:17] == b"\x02" + provider_key_id(PROVIDER_PK)  # nothing else in clear
    assert len(bundle(conversation="c" * 256)) == 538  # one length for every bundle
    store = MemoryKeyStore()
    installed = install(text, store)
    assert installed.outcome == "installed" and not installed.already_installed
    assert installed.bundle.key == KD and installed.conversation == "conv-1" and installed.bundle.epoch == 2
    assert installed.record == ConversationRecord(2, SINCE, 0) == store.record("conv-1")
    assert store.key_for("conv-1", 2) == (KD, None)
    sealed = Sealer().seal_apns_for_device(Content("conv-1", "m-1", NOW, body="hi"), K, device_key_id(DEVICE_PK))
    assert open_payload(sealed.body, store, clock=lambda: NOW).content.body == "hi"
    assert sealed.body == Sealer().seal_apns(Content("conv-1", "m-1", NOW, body="hi"), KD,
                                             test_salt=b64url_decode(sealed.wire)[17:41]).body  # a bare key is K_d
    other = Sealer().seal_apns_for_device(Content("conv-1", "m-1", NOW, body="hi"), K, device_key_id(TABLET_PK))
    from pushseal import OpenError
    with pytest.raises(OpenError) as e:  # sealed for the tablet: this device has no such key
        open_payload(other.body, store, clock=lambda: NOW)
    assert e.value.reason.value == "unknown_key"
    again = install(text, store)
    assert again.outcome == "already_installed" and again.already_installed
    from pushseal import SealError
    with pytest.raises(SealError) as e:
        Sealer().seal_apns_for_device(Content("conv-1", "m-1", NOW, body="hi"), K, bytes(15))
    assert e.value.code == "invalid_key"


def test_a_bundle_sealed_to_another_device_fails_authentication():
    assert reason(bundle(device_public_key=TABLET_PK)) is BundleReason.BUNDLE_AUTHENTICATION_FAILED
    assert open_bundle(bundle(device_public_key=TABLET_PK), TABLET_SK, [PROVIDER_PK], MemoryKeyStore(), NOW).bundle.key \
        == device_key(K, device_key_id(TABLET_PK))


def test_the_expiry_boundary():
    assert install(bundle(expires=NOW), MemoryKeyStore()).outcome == "installed"
    assert reason(bundle(expires=NOW - 1)) is BundleReason.BUNDLE_EXPIRED


@pytest.mark.parametrize("text", ["", "A", "AQ=", "AQ==", "A" * 1025, "a+b/", b64url_encode(bytes([2]) * 402),
                                  b64url_encode(bytes([2]) * 404), b64url_encode(bytes([2]) * 17)])
def test_malformed_bundles(text):
    assert reason(text) is BundleReason.MALFORMED_BUNDLE


@pytest.mark.parametrize("text", [b64url_encode(bytes([1]) * 403), b64url_encode(bytes([1]) + bytes(160)),
                                  b64url_encode(bytes([3])), b64url_encode(bytes([0]) * 403)])
def test_format_1_and_other_versions_are_unsupported_whatever_their_length(text):
    assert reason(text) is BundleReason.UNSUPPORTED_BUNDLE_VERSION


def _edit(text, at, value):
    data = bytearray(b64url_decode(text))
    data[at] = value
    return b64url_encode(bytes(data))


def test_each_check_in_order():
    text = bundle()
    assert reason(text, pinned=(STRANGER_PK,)) is BundleReason.UNKNOWN_PROVIDER
    assert reason(text, pinned=()) is BundleReason.UNKNOWN_PROVIDER
    assert install(text, MemoryKeyStore()).outcome == "installed"  # with the right pin
    assert open_bundle(text, DEVICE_SK, [STRANGER_PK, PROVIDER_PK], MemoryKeyStore(), NOW).outcome == "installed"
    forged = bundle(provider_private_key=STRANGER_SK)  # names the stranger's key id
    forged = b64url_encode(b"\x02" + provider_key_id(PROVIDER_PK) + b64url_decode(forged)[17:])
    assert reason(forged) is BundleReason.BUNDLE_AUTHENTICATION_FAILED
    assert reason(_edit(text, 1, b64url_decode(text)[1] ^ 1)) is BundleReason.UNKNOWN_PROVIDER  # the header names no pin
    relabelled = b64url_encode(b"\x02" + provider_key_id(STRANGER_PK) + b64url_decode(text)[17:])
    assert reason(relabelled, pinned=(PROVIDER_PK, STRANGER_PK)) is BundleReason.BUNDLE_AUTHENTICATION_FAILED
    for at in (17, 48, 49, 200, 402):  # enc, sealed contents, tag
        assert reason(_edit(text, at, b64url_decode(text)[at] ^ 1)) is BundleReason.BUNDLE_AUTHENTICATION_FAILED
    small = b64url_encode(b64url_decode(text)[:17] + bytes(32) + b64url_decode(text)[49:])
    assert reason(small) is BundleReason.BUNDLE_AUTHENTICATION_FAILED  # the all-zero DH
    assert reason(text, device_sk=STRANGER_SK) is BundleReason.BUNDLE_AUTHENTICATION_FAILED
    # An expired bundle with a wrong envelope kid is expired (step 8 before 8b), and a locked store is asked last.
    assert reason(bundle(expires=NOW - 1), envelope_kid=bytes(16)) is BundleReason.BUNDLE_EXPIRED
    assert reason(bundle(expires=NOW - 1), Locked()) is BundleReason.BUNDLE_EXPIRED
    assert reason(text, Locked(), envelope_kid=bytes(16)) is BundleReason.ENVELOPE_MISMATCH


@pytest.mark.parametrize("pt", [
    _pt(epoch=0), _pt(epoch=1 << 63), _pt(since=1 << 63), _pt(retire_by=SINCE - 1), _pt(retire_by=1 << 63),
    _pt(retire_by=(1 << 64) - 2), _pt(expires=1 << 63), _pt(n=0), _pt(n=257), _pt(pad=b"\x00\x01"),
    _pt(cid=b"c\xff"), _pt(cid=b"c\x01d"), _pt(cid=b"c\xed\xa0\x80"), _pt(cid=b"conv-1", n=7),
])
def test_a_sealed_field_out_of_range_is_malformed_after_opening(pt):
    assert len(pt) == 338
    assert reason(_raw(pt)) is BundleReason.MALFORMED_BUNDLE
    assert reason(_raw(pt), pinned=(STRANGER_PK,)) is BundleReason.UNKNOWN_PROVIDER  # only after authentication


def test_the_field_bounds_install():
    for pt in (_pt(epoch=(1 << 63) - 1), _pt(since=(1 << 63) - 1, retire_by=(1 << 63) - 1, expires=(1 << 63) - 1),
               _pt(retire_by=SINCE), _pt(cid="é".encode() * 128)):
        assert install(_raw(pt), MemoryKeyStore()).outcome == "installed"
    assert len(_raw(_pt())) == 538


def test_kid_mismatch():
    assert reason(_raw(_pt(kid=bytes(16)))) is BundleReason.KID_MISMATCH
    assert reason(_raw(_pt(key=K, kid=key_id(KD)))) is BundleReason.KID_MISMATCH
    assert install(_raw(_pt(key=K)), MemoryKeyStore()).outcome == "installed"  # consistent: only K_d is ever sent


def test_in_band_the_bundle_must_deliver_the_envelopes_key():
    store = MemoryKeyStore()
    assert reason(bundle(), store, envelope_kid=key_id(K)) is BundleReason.ENVELOPE_MISMATCH
    assert store.record("conv-1") is None and store.key_for("conv-1", 2) is None  # nothing installed
    assert install(bundle(), store, envelope_kid=key_id(KD)).outcome == "installed"


def test_rotation_retires_earlier_epochs_at_the_providers_since():
    store = MemoryKeyStore()
    install(bundle(epoch=1, since=SINCE - 1000), store)
    k2 = bytes(range(2, 34))
    later = NOW + 86400 * 40  # the new epoch's bundle arrives 40 days after the rotation
    installed = install(bundle(k2, epoch=2, since=SINCE, expires=later), store, now=later)
    assert installed.outcome == "installed" and installed.retire_earlier_at == SINCE
    assert store.key_for("conv-1", 1)[1] == SINCE  # not the install time
    assert store.record("conv-1") == ConversationRecord(2, SINCE, 0)
    # A since in the future retires at now.
    k3 = bytes(range(3, 35))
    assert install(bundle(k3, epoch=3, since=later + 600, expires=later), store, now=later).retire_earlier_at == later
    assert store.key_for("conv-1", 2)[1] == later and store.key_for("conv-1", 1)[1] == SINCE  # never loosened


def test_below_the_high_water_a_bundle_installs_only_retired():
    store = MemoryKeyStore()
    install(bundle(bytes(range(2, 34)), epoch=2, since=SINCE), store)
    replay = install(bundle(epoch=1, since=SINCE - 1000), store)  # a "current" bundle of the old epoch
    assert replay.outcome == "installed_retired" and replay.not_after == SINCE
    assert store.key_for("conv-1", 1) == (KD, SINCE)
    assert store.record("conv-1") == ConversationRecord(2, SINCE, 0)  # the high-water does not move back
    s2 = MemoryKeyStore()
    install(bundle(bytes(range(2, 34)), epoch=2, since=SINCE), s2)
    early = install(bundle(epoch=1, since=SINCE - 1000, retire_by=SINCE - 500), s2)
    assert early.outcome == "installed_retired" and early.not_after == SINCE - 500  # the carried retire-by if earlier
    s3 = MemoryKeyStore()
    install(bundle(bytes(range(2, 34)), epoch=2, since=NOW + 600), s3)
    assert install(bundle(epoch=1, since=SINCE), s3).not_after == NOW  # never later than now


def test_finding_f1_below_two_epochs_a_bundle_is_retired_at_the_next_epochs_start():
    store = MemoryKeyStore()
    install(bundle(bytes(range(2, 34)), epoch=2, since=SINCE - 3600), store)
    install(bundle(bytes(range(3, 35)), epoch=3, since=SINCE), store)
    assert store.created_at("conv-1", 2) == SINCE - 3600  # the start: min(since, install time)
    replay = install(bundle(epoch=1, since=SINCE - 7200), store)  # recorded while epoch 1 was current
    assert replay.outcome == "installed_retired" and replay.not_after == SINCE - 3600  # not S_H = SINCE


def test_already_installed_tightens_a_retire_by_and_never_loosens_it():
    store = MemoryKeyStore()
    install(bundle(epoch=1, since=SINCE), store)
    tightened = install(bundle(epoch=1, since=SINCE, retire_by=SINCE + 10), store)
    assert tightened.outcome == "already_installed" and tightened.not_after == SINCE + 10
    assert install(bundle(epoch=1, since=SINCE, retire_by=SINCE + 20), store).not_after == SINCE + 10
    assert install(bundle(epoch=1, since=SINCE), store).not_after == SINCE + 10
    assert store.key_for("conv-1", 1)[1] == SINCE + 10


def test_the_step_cap_and_big_epochs():
    store = MemoryKeyStore()
    install(bundle(epoch=1), store)
    assert reason(bundle(bytes(range(2, 34)), epoch=1 + 65537), store) is BundleReason.EPOCH_OUT_OF_RANGE
    assert reason(bundle(bytes(range(2, 34)), epoch=(1 << 63) - 1), store) is BundleReason.EPOCH_OUT_OF_RANGE
    assert install(bundle(bytes(range(2, 34)), epoch=1 + 65536), store).outcome == "installed"
    fresh = MemoryKeyStore()  # no high-water yet: any epoch, read exactly
    big = install(bundle(epoch=(1 << 63) - 1, since=(1 << 53) + 1, retire_by=(1 << 63) - 2, expires=(1 << 63) - 1), fresh)
    assert big.record == ConversationRecord((1 << 63) - 1, (1 << 53) + 1, 0) and big.not_after == (1 << 63) - 2


def test_a_purged_epoch_never_comes_back():
    store = MemoryKeyStore()
    install(bundle(epoch=1), store)
    install(bundle(bytes(range(2, 34)), epoch=2), store)
    store.purge("conv-1", 1)
    assert store.key_for("conv-1", 1) is None and store.record("conv-1").purged_through == 1
    assert reason(bundle(epoch=1), store) is BundleReason.EPOCH_PURGED
    store.purge("conv-1", 0)  # P only grows
    assert store.record("conv-1").purged_through == 1


def test_conflicting_keys_are_refused_and_nothing_is_installed():
    store = MemoryKeyStore()
    store.install("conv-1", 2, OTHER_K, None)
    assert reason(bundle(), store) is BundleReason.CONFLICTING_KEY
    elsewhere = MemoryKeyStore()
    elsewhere.install("conv-2", 2, KD, None)
    assert reason(bundle(), elsewhere) is BundleReason.CONFLICTING_KEY
    assert elsewhere.key_for("conv-1", 2) is None and elsewhere.record("conv-1") is None


def test_a_store_without_a_record_starts_from_its_newest_epoch():
    store = MemoryKeyStore()
    store.install("conv-1", 5, OTHER_K, None, created=SINCE)
    assert store.record("conv-1") == ConversationRecord(5, SINCE, 0)
    assert install(bundle(epoch=3), store).outcome == "installed_retired"


class Locked(BundleKeyStore):
    def key_for(self, conversation, epoch):
        raise StoreLocked()

    def location_of(self, kid):
        raise StoreLocked()

    def record(self, conversation):
        raise StoreLocked()


def test_a_locked_store_is_store_locked():
    assert reason(bundle(), Locked()) is BundleReason.STORE_LOCKED


@pytest.mark.parametrize("change", [dict(k=bytes(31)), dict(epoch=0), dict(epoch=1 << 63), dict(since=1 << 63),
                                    dict(since=-1), dict(retire_by=SINCE - 1), dict(retire_by=1 << 63),
                                    dict(expires=1 << 63), dict(expires=-1), dict(conversation="a\ud800"),
                                    dict(conversation=""), dict(conversation="x" * 257), dict(conversation="a\nb"),
                                    dict(device_public_key=bytes(31))])
def test_seal_refuses_invalid_arguments(change):
    with pytest.raises(ValueError):
        bundle(**change)


@pytest.mark.parametrize("change", [dict(epoch=True), dict(since="1"), dict(expires=1.0)])
def test_seal_refuses_arguments_of_another_type(change):
    with pytest.raises(TypeError):
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
        sealed = sealer(Content("conv-1", "m-1", NOW, body="x" * mid), KD, options_for)
        lo, hi = (mid, hi) if sealed.path == "complete" else (lo, mid - 1)
    return lo


def test_an_in_band_bundle_is_counted_first_and_sits_next_to_the_envelope():
    from pushseal import APNsOptions, FCMOptions
    text = bundle()
    plain, carrying = APNsOptions(), APNsOptions(key_bundle=text)
    sealer = Sealer().seal_apns
    sealed = sealer(Content("conv-1", "m-1", NOW, body="hi"), KD, carrying)
    body = sealed.body.decode()
    assert body.endswith(f'"pushseal":"{sealed.wire}","pushseal-bundle":"{text}"}}')
    assert sealed.sizes.limited == sealed.sizes.payload == len(sealed.body)
    assert json.loads(body)["pushseal-bundle"] == text
    store = MemoryKeyStore()
    open_bundle(json.loads(body)["pushseal-bundle"], DEVICE_SK, [PROVIDER_PK], store, NOW,
                envelope_kid=b64url_decode(sealed.wire)[1:17])
    assert open_payload(sealed.body, store, clock=lambda: NOW).content.body == "hi"  # the receiver ignores the member
    # The body that just fits without the bundle is truncated to make room for it, within 4096 bytes.
    n = _largest_complete_body(sealer, plain)
    assert sealer(Content("conv-1", "m-1", NOW, body="x" * n), KD, plain).path == "complete"
    squeezed = sealer(Content("conv-1", "m-1", NOW, body="x" * n), KD, carrying)
    assert squeezed.path == "truncated" and len(squeezed.body) <= 4096
    assert _largest_complete_body(sealer, carrying) < n


def test_an_in_band_bundle_in_an_fcm_message():
    from pushseal import FCMOptions
    text = bundle()
    sealed = Sealer().seal_fcm(Content("conv-1", "m-1", NOW, body="hi"), KD, FCMOptions("tok", key_bundle=text))
    message = json.loads(sealed.body)
    assert list(message["message"]["data"]) == ["pushseal", "pushseal-bundle"]
    assert message["message"]["data"]["pushseal-bundle"] == text
    assert sealed.sizes.limited == len("pushseal") + len(sealed.wire) + len("pushseal-bundle") + len(text)


def test_an_in_band_bundle_must_be_a_format_2_bundle():
    from pushseal import APNsOptions, SealError
    for text in ("AQ", b64url_encode(bytes([1]) * 403), bundle()[:-4]):
        with pytest.raises(SealError) as e:
            Sealer().seal_apns(Content("conv-1", "m-1", NOW, body="hi"), KD, APNsOptions(key_bundle=text))
        assert e.value.code == "invalid_option"


def test_a_retired_device_key_is_refused_for_later_notifications_and_fcm_seals_per_device():
    from pushseal import FCMOptions, OpenError
    store = MemoryKeyStore()
    install(bundle(epoch=1, since=SINCE - 1000), store)
    install(bundle(bytes(range(2, 34)), epoch=2, since=SINCE), store)  # retires epoch 1 at SINCE
    d = device_key_id(DEVICE_PK)
    early = Sealer().seal_fcm_for_device(Content("conv-1", "m-1", SINCE - 10, body="old"), K, d, FCMOptions("tok"))
    assert open_payload(early.body, store, clock=lambda: SINCE).content.body == "old"  # sent before the rotation
    late = Sealer().seal_fcm_for_device(Content("conv-1", "m-2", NOW, body="forged"), K, d, FCMOptions("tok"))
    with pytest.raises(OpenError) as e:  # dated after the retirement: the removed member's forgery
        open_payload(late.body, store, clock=lambda: NOW)
    assert e.value.reason.value == "retired_key"
