"""The public API as a user calls it: seal, open, every reason code, every seal error."""

import subprocess
import sys
import time

import pytest

import pushseal
from pushseal import (
    KEY_LOCKED, APNsOptions, Content, FCMOptions, OpenError, Reason, Receiver, Sealer, SealError, SingleKeySource,
    TextPlaceholder, b64url_encode, open_payload, open_wire,
)
from pushseal.wire import seal_envelope

KEY = bytes(range(32))
OTHER = bytes(range(1, 33))
NOW = 1_764_400_000
SALT = bytes(24)


def content(**changes):
    return Content("conv-1", "m-1", NOW - 5, body="Hi 👋🏽", title="Ana").replace(**changes)


def source(key=KEY, conversation="conv-1", locked=False):
    return SingleKeySource(key, conversation, locked=locked)


def reason_of(payload, src=None, **options):
    with pytest.raises(OpenError) as raised:
        open_payload(payload, src or source(), clock=lambda: NOW, **options)
    return raised.value.reason


def test_apns_round_trip_and_fcm_round_trip():
    sealed = Sealer().seal_apns(content(), KEY)
    assert sealed.path == "complete" and sealed.sizes.padded == 256 and len(sealed.body) <= 4096
    opened = open_payload(sealed.body, source(), clock=lambda: NOW)
    assert opened.content == content() and not opened.duplicate and not opened.requires_fetch
    fcm = Sealer().seal_fcm(content(), KEY, FCMOptions("token-1"))
    assert fcm.text.startswith('{"message":{"token":"token-1","data":{"pushseal":"')
    assert open_payload(fcm.text, source(), clock=lambda: NOW).content_bytes == content().encode()


def test_fresh_salts_differ_and_test_salt_is_deterministic():
    assert Sealer().seal_apns(content(), KEY).wire != Sealer().seal_apns(content(), KEY).wire
    assert Sealer().seal_apns(content(), KEY, test_salt=SALT).body == Sealer().seal_apns(content(), KEY, test_salt=SALT).body


def test_every_reason_code():
    good = Sealer().seal_apns(content(), KEY).wire
    assert reason_of(b'{"aps":{}}') is Reason.NOT_SEALED
    assert reason_of(b'{"pushseal":"a","pushseal":"b"}') is Reason.MALFORMED_ENVELOPE
    assert reason_of('{"pushseal":"%s="}' % good) is Reason.MALFORMED_ENVELOPE
    assert reason_of('{"pushseal":"%s"}' % b64url_encode(b"\x02" + bytes(60))) is Reason.UNSUPPORTED_VERSION
    assert reason_of('{"pushseal":"%s"}' % good, source(OTHER)) is Reason.UNKNOWN_KEY
    assert reason_of('{"pushseal":"%s"}' % good, source(locked=True)) is Reason.STORE_LOCKED
    tampered = good[:-2] + ("A" if good[-2] != "A" else "B") + good[-1]
    assert reason_of('{"pushseal":"%s"}' % tampered) is Reason.AUTHENTICATION_FAILED
    bad_padding = b64url_encode(seal_envelope(KEY, SALT, b'{"cid":"conv-1"}\x00'))
    assert reason_of('{"pushseal":"%s"}' % bad_padding) is Reason.MALFORMED_CONTENT
    assert reason_of('{"pushseal":"%s"}' % good, source(conversation="conv-2")) is Reason.CONVERSATION_MISMATCH
    assert reason_of('{"pushseal":"%s"}' % good, max_age=1) is Reason.STALE
    with pytest.raises(OpenError) as raised:
        open_wire("", source())
    assert raised.value.reason.value == "malformed_envelope" and str(raised.value.reason) == "malformed_envelope"
    assert "Hi" not in str(raised.value)


def test_duplicate_flag_and_content_free():
    seen = set()

    def log(cid, mid):
        hit = (cid, mid) in seen
        seen.add((cid, mid))
        return hit

    receiver = Receiver(source(), clock=lambda: NOW, seen=log)
    sealed = Sealer().seal_apns(content(), KEY)
    assert [receiver.open(sealed.body).duplicate for _ in range(2)] == [False, True]
    free = Sealer().seal_apns(Content("conv-1", "m-2", NOW), KEY)
    assert receiver.open(free.body).requires_fetch


def test_truncation_is_grapheme_safe_and_marks_trunc():
    family = "👨‍👩‍👧‍👦"
    sealed = Sealer().seal_apns(content(body=family * 400), KEY)
    assert sealed.path == "truncated" and sealed.sizes.limited <= 4096
    body = sealed.content.body
    assert sealed.content.trunc and body.endswith("…") and body[:-1] == family * (len(body[:-1]) // len(family))
    assert open_payload(sealed.body, source(), clock=lambda: NOW).content.trunc


def test_padding_cap_and_content_free_switch_and_does_not_fit():
    capped = Sealer(pad_block=4096).seal_apns(content(body="x"), KEY)
    assert capped.sizes.limited <= 4096 < capped.sizes.limited + 4
    free = Sealer().seal_apns(content(title="T" * 3500), KEY)
    assert free.path == "content_free" and free.content == content().content_free
    with pytest.raises(SealError) as raised:
        Sealer().seal_apns(content(), KEY, APNsOptions(TextPlaceholder("p" * 4100)))
    assert raised.value.code == "does_not_fit"


@pytest.mark.parametrize("call, code", [
    (lambda: Sealer(0), "invalid_pad_block"),
    (lambda: Sealer().seal_apns(content(cid=""), KEY), "invalid_content"),
    (lambda: Sealer().seal_apns(content(body=None), KEY), "invalid_content"),
    (lambda: Sealer().seal_apns(content(), KEY, test_salt=bytes(3)), "invalid_salt"),
    (lambda: Sealer().seal_apns(content(), bytes(5)), "invalid_key"),
    (lambda: Sealer().seal_apns(content(), KEY, APNsOptions(TextPlaceholder(""))), "missing_placeholder"),
    (lambda: Sealer().seal_apns(content(), KEY, APNsOptions(relevance_score=2.0)), "invalid_option"),
    (lambda: Sealer().seal_fcm(content(), KEY, FCMOptions("bad token")), "invalid_fcm_token"),
])
def test_seal_errors_carry_codes(call, code):
    with pytest.raises(SealError) as raised:
        call()
    assert raised.value.code == code


def test_import_has_no_side_effects_and_version_is_exported():
    run = subprocess.run([sys.executable, "-c", "import pushseal, sys; print(sorted(m for m in sys.modules if m.startswith('pushseal')))"],
                         capture_output=True, text=True, check=True)
    assert run.stderr == "" and "pushseal.vectors" not in run.stdout
    assert pushseal.__version__.count(".") == 2
    assert KEY_LOCKED == "locked"


def test_times_are_checked_integers_up_to_2_63_minus_1():
    body = Sealer().seal_apns(content(), KEY).text
    top = (1 << 63) - 1
    opened = Receiver(SingleKeySource(KEY, "conv-1", retire_by=top), clock=lambda: top, max_age=top, max_future_skew=top).open(body)
    assert opened.content.mid == "m-1"
    with pytest.raises(TypeError):
        Receiver(source(), max_age="60")
    with pytest.raises(TypeError):
        Receiver(source(), max_future_skew=True)
    with pytest.raises(ValueError):
        Receiver(source(), max_age=1 << 63)
    with pytest.raises(ValueError):
        Receiver(source(), clock=lambda: -1).open(body)
    with pytest.raises(TypeError):
        Receiver(source(), clock=time.time).open(body)


def test_a_parsed_payload_is_a_clear_type_error():
    import json
    body = Sealer().seal_apns(content(), KEY).text
    with pytest.raises(TypeError, match="needs the payload as received"):
        open_payload(json.loads(body), source(), clock=lambda: NOW)
    assert open_payload(bytearray(body.encode("utf-8")), source(), clock=lambda: NOW).content.mid == "m-1"


def test_generate_key_and_typed_seal_codes():
    a, b = pushseal.generate_key(), pushseal.generate_key()
    assert len(a) == 32 and a != b
    assert open_payload(Sealer().seal_apns(content(), a).text, SingleKeySource(a, "conv-1"), clock=lambda: NOW).content.mid == "m-1"
    with pytest.raises(SealError) as raised:
        Sealer().seal_apns(content(), bytes(5))
    assert raised.value.code is pushseal.SealCode.INVALID_KEY and raised.value.code == "invalid_key"
    with pytest.raises(ValueError):
        SealError("no_such_code", "x")
