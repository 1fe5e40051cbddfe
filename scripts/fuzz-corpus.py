#!/usr/bin/env python3
"""Regenerates the seed corpora in Fuzz/Corpus/<Target>/ from Vectors/pushseal-v1.json (and
FuzzBundle's from Vectors/pushseal-v1-bundles.json, FuzzDeliveryLog's from the log file's documented
layout) plus hand-made edge cases. Deterministic: same vector file, same files.

Files this script owns are named `vec-*` and `edge-*`; it deletes and rewrites those only.
Anything else in a corpus directory (crash reproducers, named `regression-*`) is kept.

Usage: scripts/fuzz-corpus.py            (from anywhere; paths are relative to the repo)
"""
import base64
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "Corpus"
VECTORS = json.loads((ROOT / "Vectors" / "pushseal-v1.json").read_text(encoding="utf-8"))["tests"]
BUNDLE_VECTORS = json.loads((ROOT / "Vectors" / "pushseal-v1-bundles.json").read_text(encoding="utf-8"))["tests"]
OWNED_PREFIXES = ("vec-", "edge-")


def b64url(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def unb64url(text: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except Exception:
        return None


def write_corpus(target: str, files: dict[str, bytes]) -> None:
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.iterdir():
        if old.name.startswith(OWNED_PREFIXES):
            old.unlink()
    seen: dict[bytes, str] = {}
    for name, data in sorted(files.items()):
        if data in seen:  # one file per distinct input
            continue
        seen[data] = name
        (directory / name).write_bytes(data)
    print(f"{target}: {len(seen)} seed files ({sum(len(d) for d in seen):,} bytes)")


# A valid envelope to mutate: tcId 1's.
VALID_WIRE = VECTORS[0]["wire"]
VALID_E = unb64url(VALID_WIRE)
KEY_ID = VALID_E[1:17]


def envelope_corpus() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for t in VECTORS:
        if t["wire"] is None:
            continue
        wire = t["wire"].encode()
        files[f"vec-{t['tcId']:03d}-wire"] = wire
        decoded = unb64url(t["wire"]) if len(wire) % 4 != 1 else None
        if decoded:  # the raw envelope bytes exercise Envelope(bytes:)
            files[f"vec-{t['tcId']:03d}-bytes"] = decoded
    edge = {
        "empty": b"",
        "one-char": b"A",
        "two-chars-version-1": b"AQ",
        "three-chars": b"AQE",
        "four-chars": b"AQEB",
        "padding-2": b"AQ==",
        "padding-1": b"AQE=",
        "padding-middle": b"AQ==AQ",
        "std-alphabet": b"+/+/",
        "space": b"AQ E",
        "newline": b"AQEB\n",
        "nul": b"AQ\x00B",
        "non-ascii-utf8": "AQé".encode(),
        "invalid-utf8": b"AQ\xff\xfe",
        "trailing-bits-2": b"AR",
        "trailing-bits-3": b"AQF",
        "len-mod-4-is-1": b"AQEBA",
        "57-bytes": b64url(b"\x01" + bytes(56)),
        "58-bytes": b64url(b"\x01" + bytes(57)),
        "58-bytes-kid": b64url(b"\x01" + KEY_ID + bytes(41)),
        "4096-bytes": b64url(b"\x01" + bytes(4095)),
        "4097-bytes": b64url(b"\x01" + bytes(4096)),
        "version-0": b64url(b"\x00" + bytes(70)),
        "version-2-short": b64url(b"\x02"),
        "version-ff": b64url(b"\xff" + VALID_E[1:]),
        "longest-wire": b"A" * 5462,
        "too-long-wire": b"A" * 5463,
        "bytes-57": b"\x01" + bytes(56),
        "bytes-58": b"\x01" + bytes(57),
        "bytes-4097": b"\x01" + bytes(4096),
        "bytes-kid-of-fixed-key": b"\x01" + KEY_ID + bytes(60),
    }
    files.update({f"edge-{k}": v for k, v in edge.items()})
    return files


def content_corpus() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for t in VECTORS:
        if t["contentHex"] is not None:
            files[f"vec-{t['tcId']:03d}-content"] = bytes.fromhex(t["contentHex"])
        if t["plaintextHex"] is not None and len(t["plaintextHex"]) <= 2 * 4100:
            files[f"vec-{t['tcId']:03d}-plaintext"] = bytes.fromhex(t["plaintextHex"])
    base = b'"cid":"c","mid":"m","ts":1'
    def obj(extra: bytes) -> bytes:
        return b"{" + base + extra + b"}"
    edge = {
        "minimal": obj(b',"body":""'),
        "content-free": obj(b""),
        "all-fields": obj(b',"title":"t","subtitle":"s","body":"b","sender":{"id":"u","name":"n","z":0},'
                          b'"thread":"th","category":"cat","badge":2147483647,"trunc":true,"x":{"b":"2","a":"1"}'),
        "bom": b"\xef\xbb\xbf" + obj(b',"body":""'),
        "empty-object": b"{}",
        "array": b"[]",
        "string": b'"x"',
        "number": b"0",
        "ws-all": b' \t\n\r{ "cid" : "c" , "mid":"m","ts":1,"body":"" } \r\n',
        "ws-formfeed": b"\x0c" + obj(b',"body":""'),
        "trailing-data": obj(b',"body":""') + b"x",
        "trailing-comma": b"{" + base + b',"body":"",}',
        "comment": b"/*c*/" + obj(b',"body":""'),
        "ts-max": b'{"cid":"c","mid":"m","ts":253402300799,"body":""}',
        "ts-max-plus-1": b'{"cid":"c","mid":"m","ts":253402300800,"body":""}',
        "ts-int64-overflow": b'{"cid":"c","mid":"m","ts":9223372036854775808,"body":""}',
        "ts-negative-zero": b'{"cid":"c","mid":"m","ts":-0,"body":""}',
        "ts-exponent": b'{"cid":"c","mid":"m","ts":1e3,"body":""}',
        "ts-fraction": b'{"cid":"c","mid":"m","ts":1.0,"body":""}',
        "ts-leading-zero": b'{"cid":"c","mid":"m","ts":01,"body":""}',
        "ts-plus": b'{"cid":"c","mid":"m","ts":+1,"body":""}',
        "ts-string": b'{"cid":"c","mid":"m","ts":"1","body":""}',
        "badge-max-plus-1": obj(b',"body":"","badge":2147483648'),
        "badge-null": obj(b',"body":"","badge":null'),
        "numbers-unknown": obj(b',"body":"","u":[-0,0.5e-7,1E+300,-12.34e5,123456789012345678901234567890]'),
        "nan": obj(b',"body":"","u":NaN'),
        "infinity": obj(b',"body":"","u":-Infinity'),
        "literals": obj(b',"body":"","u":[true,false,null]'),
        "bad-literal": obj(b',"body":"","u":nul'),
        "escapes": obj(b',"body":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u00e9\\u2028"'),
        "escape-invalid": obj(b',"body":"\\x"'),
        "surrogate-pair": obj(b',"body":"\\ud83d\\ude00"'),
        "lone-high": obj(b',"body":"\\ud800"'),
        "lone-low": obj(b',"body":"\\udc00"'),
        "high-then-char": obj(b',"body":"\\ud800\\u0041"'),
        "truncated-escape": obj(b',"body":"\\u12"'),
        "control-char": obj(b',"body":"a\x01b"'),
        "del-char": obj(b',"body":"a\x7fb"'),
        "utf8-4byte": obj(',"body":"👨‍👩‍👧 é e\u0301"'.encode()),
        "overlong-slash": obj(b',"body":"\xc0\xaf"'),
        "overlong-3": obj(b',"body":"\xe0\x80\xaf"'),
        "encoded-surrogate": obj(b',"body":"\xed\xa0\x80"'),
        "above-10ffff": obj(b',"body":"\xf4\x90\x80\x80"'),
        "truncated-utf8": obj(b',"body":"\xe2\x82"'),
        "lone-continuation": obj(b',"body":"\x80"'),
        "f5-lead": obj(b',"body":"\xf5\x80\x80\x80"'),
        "duplicate-cid": b'{"cid":"c","cid":"c","mid":"m","ts":1,"body":""}',
        "duplicate-escaped": obj(b',"body":"","a":1,"\\u0061":2'),
        "duplicate-nested": obj(b',"body":"","u":{"k":1,"k":2}'),
        "not-duplicate-nfd": obj(',"body":"","é":1,"e\u0301":2'.encode()),
        "depth-16": obj(b',"body":"","u":' + b"[" * 15 + b"]" * 15),
        "depth-17": obj(b',"body":"","u":' + b"[" * 16 + b"]" * 16),
        "depth-huge": b"[" * 3000,
        "cid-empty": b'{"cid":"","mid":"m","ts":1,"body":""}',
        "cid-256": b'{"cid":"' + b"c" * 256 + b'","mid":"m","ts":1,"body":""}',
        "cid-257": b'{"cid":"' + b"c" * 257 + b'","mid":"m","ts":1,"body":""}',
        "cid-256-escaped": b'{"cid":"' + b"\\u00e9" * 128 + b'","mid":"m","ts":1,"body":""}',
        "body-null": obj(b',"body":null'),
        "body-number": obj(b',"body":1'),
        "title-only-no-body": obj(b',"title":"t"'),
        "sender-string": obj(b',"body":"","sender":"u"'),
        "sender-no-id": obj(b',"body":"","sender":{"name":"n"}'),
        "sender-id-empty": obj(b',"body":"","sender":{"id":""}'),
        "thread-empty": obj(b',"body":"","thread":""'),
        "category-257": obj(b',"body":"","category":"' + b"k" * 257 + b'"'),
        "trunc-false": obj(b',"body":"","trunc":false'),
        "trunc-string": obj(b',"body":"","trunc":"true"'),
        "x-number": obj(b',"body":"","x":{"a":1}'),
        "x-array": obj(b',"body":"","x":[]'),
        "x-escaped-keys": obj(b',"body":"","x":{"\\u0062":"1","a":"\\n","\xc3\xa9":""}'),
        "size-4000": b'{"cid":"c","mid":"m","ts":1,"body":"' + b"a" * (4000 - 37) + b'"}',
        "size-4001": b'{"cid":"c","mid":"m","ts":1,"body":"' + b"a" * (4001 - 37) + b'"}',
        "padding-only": b"\x80",
        "padding-zeros": bytes(16),
        "padding-bad-tail": obj(b',"body":""') + b"\x80\x00\x01",
        "padding-double-marker": obj(b',"body":""') + b"\x80\x80\x00",
    }
    files.update({f"edge-{k}": v for k, v in edge.items()})
    return files


def open_corpus() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for t in VECTORS:
        files[f"vec-{t['tcId']:03d}-apns"] = t["payload"].encode()
        if t["fcm"]:
            files[f"vec-{t['tcId']:03d}-fcm"] = t["fcm"].encode()
    wire = VALID_WIRE.encode()
    edge = {
        "minimal": b'{"pushseal":"' + wire + b'"}',
        "fcm-data-map": b'{"message":{"data":{"pushseal":"' + wire + b'"}}}',
        "fcm-extra-member": b'{"message":{"data":{"pushseal":"' + wire + b'"},"token":"t"}}',
        "both-forms": b'{"pushseal":"' + wire + b'","message":{"data":{"pushseal":"x"}}}',
        "duplicate-aps": b'{"aps":{},"aps":{},"pushseal":"' + wire + b'"}',
        "duplicate-pushseal-fcm": b'{"message":{"data":{"pushseal":"' + wire + b'","pushseal":"' + wire + b'"}}}',
        "pushseal-null": b'{"pushseal":null}',
        "pushseal-array": b'{"pushseal":["' + wire + b'"]}',
        "pushseal-escaped-name": b'{"pushs\\u0065al":"' + wire + b'"}',
        "pushseal-escaped-value": b'{"pushseal":"' + wire[:10] + b'\\u0041' + wire[11:] + b'"}',
        "not-json": b"pushseal",
        "empty": b"",
        "bom": b"\xef\xbb\xbf" + b'{"pushseal":"' + wire + b'"}',
        "deep": b'{"a":' + b"[" * 16 + b"]" * 16 + b',"pushseal":"' + wire + b'"}',
        "pushseal-too-long": b'{"pushseal":"' + b"A" * 5463 + b'"}',
    }
    files.update({f"edge-{k}": v for k, v in edge.items()})
    return files


def sizing_input(content: dict, fcm=False, pad_block=256, placeholder_body=None, placeholder_title=None,
                 localized_argument=None, sound=None, collapse_id=None, token=7) -> bytes:
    """Encodes one FuzzProviderSizing scenario (see Scenario in FuzzProviderSizing.swift)."""
    def string(text) -> bytes:
        data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
        return len(data).to_bytes(2, "big") + data
    flags = (1 if fcm else 0)
    flags |= 0x02 if "title" in content else 0
    flags |= 0x04 if "subtitle" in content else 0
    flags |= 0x08 if "sender" in content else 0
    flags |= 0x10 if "name" in content.get("sender", {}) else 0
    flags |= 0x20 if "thread" in content else 0
    flags |= 0x40 if "category" in content else 0
    flags |= 0x80 if "badge" in content else 0
    more = 0x01 if content.get("trunc") else 0
    more |= 0x02 if content.get("x") else 0
    more |= 0x04 if "body" not in content else 0
    more |= 0x08 if placeholder_body is not None else 0
    more |= 0x10 if placeholder_title is not None else 0
    more |= 0x20 if sound is not None else 0
    more |= 0x40 if collapse_id is not None else 0
    more |= 0x80 if localized_argument is not None else 0
    out = bytes([flags, more]) + pad_block.to_bytes(2, "big") + int(content["ts"]).to_bytes(5, "big")
    out += string(content["cid"]) + string(content["mid"]) + string(content.get("body", ""))
    for name in ("title", "subtitle"):
        if name in content:
            out += string(content[name])
    if "sender" in content:
        out += string(content["sender"]["id"])
        if "name" in content["sender"]:
            out += string(content["sender"]["name"])
    for name in ("thread", "category"):
        if name in content:
            out += string(content[name])
    if "badge" in content:
        out += (int(content["badge"]) + 1).to_bytes(4, "big")
    if content.get("x"):
        out += bytes([len(content["x"])])
        for k, v in content["x"].items():
            out += string(k) + string(v)
    if placeholder_body is not None:
        out += string(placeholder_body)
    if placeholder_title is not None:
        out += string(placeholder_title)
    if localized_argument is not None:
        out += string(localized_argument)
    if sound is not None:
        out += string(sound)
    if collapse_id is not None:
        out += string(collapse_id)
    return out + token.to_bytes(2, "big")


def sizing_corpus() -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for t in VECTORS:
        if t["result"] != "valid" or t["content"] is None:
            continue
        try:
            content = json.loads(t["content"])
        except ValueError:
            continue
        if not isinstance(content.get("ts"), int):
            continue
        files[f"vec-{t['tcId']:03d}-apns"] = sizing_input(content, pad_block=t["padBlock"] or 256)
        files[f"vec-{t['tcId']:03d}-fcm"] = sizing_input(content, fcm=True, pad_block=t["padBlock"] or 256)
    base = {"cid": "conv-alice-bob", "mid": "m-1", "ts": 1764399940}
    def c(**extra):
        return {**base, **extra}
    edge = {
        "minimal": sizing_input(c(body="")),
        "content-free": sizing_input(c()),
        "no-body-with-title": sizing_input(c(title="t")),
        "body-4000-ascii": sizing_input(c(body="a" * 4000)),
        "body-6000-ascii-fcm": sizing_input(c(body="b" * 6000), fcm=True),
        "body-emoji": sizing_input(c(title="Ana", body="👨‍👩‍👧‍👦🏳️‍🌈" * 300)),
        "body-combining": sizing_input(c(body="e\u0301" * 1500)),
        "body-controls": sizing_input(c(body="\x01\x1f\"\\" * 700)),
        "body-mixed-pad-1": sizing_input(c(body="é👋\n" * 900), pad_block=1),
        "pad-4096": sizing_input(c(body="hello"), pad_block=4096),
        "pad-0-invalid": sizing_input(c(body="hello"), pad_block=0),
        "ids-256-controls": sizing_input({"cid": "\x01" * 256, "mid": "\x02" * 256, "ts": 1, "body": "x" * 3000}),
        "ids-257": sizing_input({"cid": "c" * 257, "mid": "m", "ts": 1, "body": ""}),
        "all-fields-big": sizing_input(c(title="T" * 500, subtitle="S" * 500, body="B" * 3000,
                                         sender={"id": "u", "name": "N" * 200}, thread="th", category="reply",
                                         badge=2147483647, trunc=True, x={"k": "v" * 300, "deep": "app://x"})),
        "badge-too-big": sizing_input(c(body="", badge=2147483648)),
        "ts-too-big": sizing_input({"cid": "c", "mid": "m", "ts": 253402300800, "body": ""}),
        "placeholder-huge": sizing_input(c(body="x"), placeholder_body="P" * 3900),
        "placeholder-empty": sizing_input(c(body="x"), placeholder_body=""),
        "placeholder-title-empty": sizing_input(c(body="x"), placeholder_body="New", placeholder_title=""),
        "placeholder-localized": sizing_input(c(body="y" * 3500), placeholder_body="MSG_KEY", placeholder_title="TITLE_KEY",
                                              localized_argument="arg"),
        "sound-and-collapse": sizing_input(c(body="z" * 3700), sound="default", collapse_id="c0ffee"),
        "collapse-too-long": sizing_input(c(body="z"), collapse_id="c" * 65),
        "sound-empty": sizing_input(c(body="z"), sound=""),
        "truncated-input": sizing_input(c(body="q" * 100))[:20],
    }
    files.update({f"edge-{k}": v for k, v in edge.items()})
    return files


def bundle_corpus() -> dict[str, bytes]:
    """FuzzBundle reads each input as bundle text and as bundle bytes: every vector bundle in
    both forms, and edits of a valid one at the limits of SPEC §16.3 / §16.5 steps 1-3."""
    files: dict[str, bytes] = {}
    for t in BUNDLE_VECTORS:
        files[f"vec-{t['tcId']:03d}-text"] = t["bundle"].encode()
        if t["bundleHex"] is not None:  # null for a text that does not decode (padding, length)
            files[f"vec-{t['tcId']:03d}-bytes"] = bytes.fromhex(t["bundleHex"])
    valid = bytes.fromhex(BUNDLE_VECTORS[0]["bundleHex"])  # format 2: always 403 bytes
    body = valid[17:]
    edge = {
        "empty": b"",
        "version-1": b"\x01" + valid[1:],
        "version-1-format-1-length": b"\x01" + valid[1:160],
        "version-3": b"\x03" + valid[1:],
        "version-0-short": b"\x00",
        "len-402": valid[:402],
        "len-404": valid + b"\x00",
        "text-1024": b"A" * 1024,
        "text-1025": b"A" * 1025,
        "text-padded": b64url(valid) + b"==",
        "text-base64-alphabet": base64.b64encode(valid).rstrip(b"="),
        "text-trailing-bits": b64url(valid)[:-1] + b"B",
        "text-newline": b64url(valid) + b"\n",
        "text-quote-backslash": b'"\\' + b64url(valid),
        "header-only": valid[:17],
        "enc-swapped": valid[:17] + body[32:64] + body[:32] + body[64:],
    }
    files.update({f"edge-{k}": v for k, v in edge.items()})
    return files


def delivery_log_corpus() -> dict[str, bytes]:
    """FuzzDeliveryLog reads each input as a whole duplicate-log file (Docs/KEY-STORE.md §2.1),
    under the target's fixed log key (32 bytes of 0x42). Written from the documented layout, not
    by the code under test: new and filled tables of the target's key (records with and without
    an envelope digest, a tombstone, a probe cluster wrapping at the end), another key's table,
    a damaged header, a torn slot, and files that hold no whole table."""
    import hashlib
    import hmac
    def check(body: bytes) -> bytes:
        return hashlib.sha256(body).digest()[:8]
    def i64(n: int) -> bytes:
        return n.to_bytes(8, "big", signed=True)
    def header(slots: int, records: int, tombstones: int, log_key: bytes, cutoff: int = -(1 << 63)) -> bytes:
        log_id = hmac.new(log_key, b"pushseal v1 delivery log id", hashlib.sha256).digest()
        body = b"PSDL" + (1).to_bytes(4, "big") + i64(slots) + i64(records) + i64(tombstones) + i64(cutoff) + log_id + bytes(48)
        return body + check(body)
    def record(tag: bytes, seen_at: int, envelope: bytes | None) -> bytes:
        body = bytes([1, 0 if envelope is None else 1]) + bytes(6) + i64(seen_at) + tag + (envelope or bytes(32)) + bytes(40)
        return body + check(body)
    tombstone = bytes([2]) + bytes(119)
    tombstone += check(tombstone)
    key = bytes([0x42]) * 32
    def table(slots: int, placed: dict[int, bytes], log_key: bytes = key, cutoff: int = -(1 << 63)) -> bytes:
        data = bytearray(bytes(128 * slots))
        for index, slot in placed.items():
            data[128 * index:128 * (index + 1)] = slot
        records = sum(1 for slot in placed.values() if slot[0] == 1)
        return header(slots, records, len(placed) - records, log_key, cutoff) + bytes(data)
    def tag(n: int, home: int | None = None) -> bytes:
        digest = hashlib.sha256(b"tag %d" % n).digest()
        return digest if home is None else home.to_bytes(8, "big") + digest[8:]
    filled = {}
    for n in range(5):
        t = tag(n)
        filled[int.from_bytes(t[:8], "big") % 256] = record(t, 1_000 + n, None if n % 2 else bytes([n]) * 32)
    filled[7] = tombstone
    cluster = {(255 + n) % 256: record(tag(100 + n, 255), 500, None) for n in range(6)}
    torn = bytearray(table(256, filled))
    first = 128 + 128 * min(i for i, slot in filled.items() if slot[0] == 1)
    torn[first + 64:first + 128] = bytes(64)
    damaged = bytearray(table(256, filled))
    damaged[0:128] = bytes(range(128))
    return {
        "edge-empty-file": b"",
        "edge-header-only": header(256, 0, 0, key),
        "vec-new-table": table(256, {}),
        "vec-filled-table": table(256, filled),
        "vec-cluster-wrapping": table(256, cluster),
        "vec-cutoff-hides-records": table(256, filled, cutoff=1_003),
        "edge-another-key": table(256, filled, log_key=bytes(32)),
        "edge-damaged-header": bytes(damaged),
        "edge-torn-slot": bytes(torn),
        "edge-not-a-table-size": bytes(range(256)) * 4,
        "edge-slot-count-too-large": header(1 << 20, 0, 0, key) + bytes(128 * 256),
    }


# FuzzBundle's fixed world (Sources/Fuzz/FuzzBundle/SealedByProvider.swift): the bundle vectors
# sealed by the pinned provider to the fixed device, with what SPEC §16.5 steps 4-8 give for them
# at the fixed device clock. Which bundles those are, and their outcome, is decided here by the
# Python port's independent HPKE and checks, never by the Swift code the target fuzzes; the
# table is written between its markers every time the corpus is regenerated, so it cannot fall
# behind the vector file (a stale table made the target trap on its own seeds).
SEALED_BY_PROVIDER = ROOT / "Sources" / "Fuzz" / "FuzzBundle" / "SealedByProvider.swift"
TABLE_BEGIN = "// BEGIN sealingInputs (generated by scripts/fuzz-corpus.py from Vectors/pushseal-v1-bundles.json)"
TABLE_END = "// END sealingInputs"
SWIFT_REASONS = {"malformed_bundle": "malformedBundle", "kid_mismatch": "kidMismatch", "bundle_expired": "bundleExpired"}


def sealing_inputs_table() -> str:
    sys.path.insert(0, str(ROOT / "Vectors" / "ports" / "python"))
    from pushseal import bundle as port  # noqa: E402 (the port, not the code under test)
    from pushseal.hpke import HPKEError, setup_receiver
    from pushseal.wire import key_id

    src = SEALED_BY_PROVIDER.read_text(encoding="utf-8")
    def constant(name: str) -> str:
        start = src.index(f"let {name}")
        line = src[start:src.index("\n", start)]
        return line.split("=", 1)[1].strip().strip('"')
    device, provider = bytes.fromhex(constant("devicePrivateKey")), bytes.fromhex(constant("providerPrivateKey"))
    now = int(constant("deviceNow"))
    provider_public = port.public_key(provider)
    rows = []
    for t in BUNDLE_VECTORS:
        if t["bundleHex"] is None or t["deviceKeyPair"]["private"] != device.hex() or t["providerKeyPair"]["private"] != provider.hex():
            continue
        data = bytes.fromhex(t["bundleHex"])
        try:
            b, enc, ct = port.parse_bundle(data)
            pt = setup_receiver(enc, device, port.BUNDLE_INFO, pk_s=provider_public).open(b, ct)
        except (port.BundleError, HPKEError):
            continue  # not sealed by the pinned provider to this device: bundle_authentication_failed and earlier
        if pt.hex() != t["plaintext"]:
            raise SystemExit(f"fuzz-corpus.py: bundle vector {t['tcId']}: its plaintext is not what its bundle holds")
        try:
            opened = port.decode_plaintext(pt)
            if opened.kid != key_id(opened.key):
                reason = "kid_mismatch"
            elif now > opened.expires:
                reason = "bundle_expired"
            else:
                reason = None
        except port.BundleError as error:
            reason = error.reason.value
        expected = ".opened" if reason is None else f".refused(.{SWIFT_REASONS[reason]})"
        rows.append(f'    SealingInput(tcId: {t["tcId"]}, plaintext: "{t["plaintext"]}", ikmE: "{t["ikmE"]}", expected: {expected}),')
    return "\n".join([TABLE_BEGIN, "let sealingInputs: [SealingInput] = ["] + rows + ["]", TABLE_END])


def write_sealing_inputs() -> None:
    src = SEALED_BY_PROVIDER.read_text(encoding="utf-8")
    start, end = src.index(TABLE_BEGIN), src.index(TABLE_END) + len(TABLE_END)
    table = sealing_inputs_table()
    SEALED_BY_PROVIDER.write_text(src[:start] + table + src[end:], encoding="utf-8")
    print(f"FuzzBundle: {table.count('SealingInput(')} bundles sealed by the provider in {SEALED_BY_PROVIDER.relative_to(ROOT)}")


def main() -> int:
    write_corpus("FuzzEnvelope", envelope_corpus())
    write_corpus("FuzzContent", content_corpus())
    write_corpus("FuzzOpen", open_corpus())
    write_corpus("FuzzProviderSizing", sizing_corpus())
    write_corpus("FuzzBundle", bundle_corpus())
    write_sealing_inputs()
    write_corpus("FuzzDeliveryLog", delivery_log_corpus())
    return 0


if __name__ == "__main__":
    sys.exit(main())
