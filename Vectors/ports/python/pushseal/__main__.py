"""``python -m pushseal``: open and seal from the command line (round trips with the ``pushseal``
tool).

  python -m pushseal open --key K --conversation CID [--now UNIX] [--max-age S]
                          [--max-future-skew S] < payload.json
  python -m pushseal seal --key K [--salt S] [--pad-block N] [--apns | --fcm TOKEN] < content.json
  python -m pushseal --version

Keys and salts are base64url without padding. ``open`` prints
``{"outcome":"decrypted"|"fallback","reason":…,"duplicate":…,"content":…}`` and exits 3 on
fallback. ``seal`` applies the size policy and prints the wire string, or with ``--apns`` the
APNs body (placeholder "New message", opaque thread-id), or with ``--fcm`` the FCM v1 message.
``--salt`` is for test vectors only. Exit codes: 0 ok; 1 failure; 3 fallback; 64 usage error."""

from __future__ import annotations

import re
import sys
import time
from typing import Dict, List, Tuple

from . import __version__
from .content import Content, json_string
from .errors import ContentError, OpenError, SealError
from .provider import APNsOptions, FCMOptions, Sealer
from .receiver import Receiver, SingleKeySource
from .strictjson import JObj, JSONError, parse_json
from .wire import b64url_decode

_PROG = "python -m pushseal"


class _Usage(Exception):
    pass


def _options(argv: List[str], names: Tuple[str, ...], flags: Tuple[str, ...] = ()) -> Dict[str, object]:
    opts: Dict[str, object] = {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in flags:
            opts[a], i = True, i + 1
        elif a in names and i + 1 < len(argv):
            opts[a], i = argv[i + 1], i + 2
        else:
            raise _Usage(f"unexpected argument {a!r}")
    return opts


def _int(opts: Dict[str, object], name: str, default: int) -> int:
    if name not in opts:
        return default
    if not re.fullmatch(r"-?[0-9]+", str(opts[name])):
        raise _Usage(f"{name} needs an integer")
    return int(str(opts[name]))


def _bytes(opts: Dict[str, object], name: str, length: int) -> bytes:
    if name not in opts:
        raise _Usage(f"{name} is required")
    b = b64url_decode(str(opts[name]))
    if b is None or len(b) != length:
        raise _Usage(f"{name} must be {length} bytes in base64url without padding")
    return b


def _placeholder(payload: bytes) -> str:
    title, body = None, "New message"
    try:
        alert = parse_json(payload, record_dups=True).get("aps").get("alert")
        if isinstance(alert, str):
            body = alert
        elif isinstance(alert, JObj):
            title = alert.get("title") if isinstance(alert.get("title"), str) else None
            body = alert.get("body") if isinstance(alert.get("body"), str) else body
    except (JSONError, AttributeError):
        pass
    parts = ([f'"title":{json_string(title)}'] if title is not None else []) + [f'"body":{json_string(body)}']
    return "{" + ",".join(parts) + "}"


def _open(argv: List[str]) -> int:
    opts = _options(argv, ("--key", "--conversation", "--now", "--max-age", "--max-future-skew"))
    key = _bytes(opts, "--key", 32)
    if "--conversation" not in opts:
        raise _Usage("--conversation is required")
    now = _int(opts, "--now", int(time.time()))
    receiver = Receiver(SingleKeySource(key, str(opts["--conversation"])), max_age=_int(opts, "--max-age", 2678400),
                        max_future_skew=_int(opts, "--max-future-skew", 600), clock=lambda: now)
    payload = sys.stdin.buffer.read()
    try:
        opened = receiver.open(payload)
    except OpenError as e:
        print('{"outcome":"fallback","reason":"%s","duplicate":false,"content":%s}' % (e.reason.value, _placeholder(payload)))
        return 3
    print('{"outcome":"decrypted","reason":null,"duplicate":%s,"content":%s}'
          % ("true" if opened.duplicate else "false", opened.content_bytes.decode("utf-8")))
    return 0


def _seal(argv: List[str]) -> int:
    opts = _options(argv, ("--key", "--salt", "--pad-block", "--fcm"), flags=("--apns",))
    key = _bytes(opts, "--key", 32)
    salt = _bytes(opts, "--salt", 24) if "--salt" in opts else None
    data = sys.stdin.buffer.read().rstrip(b"\n")
    try:
        unknown = Content.unknown_members(data)
        content = Content.decode(data, max_bytes=None)
    except (ContentError, JSONError) as e:
        print(f"{_PROG}: error: invalid content: {e}", file=sys.stderr)
        return 1
    if unknown:
        print(f"{_PROG}: warning: dropping unknown members {unknown}", file=sys.stderr)
    try:
        sealer = Sealer(_int(opts, "--pad-block", 256))
        if "--fcm" in opts:
            sealed = sealer.seal_fcm(content, key, FCMOptions(str(opts["--fcm"])), test_salt=salt)
        else:
            sealed = sealer.seal_apns(content, key, APNsOptions(), test_salt=salt)
    except SealError as e:
        print(f"{_PROG}: error: {e}", file=sys.stderr)
        return 1
    print(sealed.text if "--apns" in opts or "--fcm" in opts else sealed.wire)
    return 0


def main(argv: List[str] = sys.argv[1:]) -> int:
    """Entry point; returns the exit status."""
    try:
        if argv[:1] == ["open"]:
            return _open(argv[1:])
        if argv[:1] == ["seal"]:
            return _seal(argv[1:])
        if argv[:1] == ["--version"]:
            print(__version__)
            return 0
        if argv[:1] in (["-h"], ["--help"]):
            print(__doc__.strip())
            return 0
        raise _Usage("expected open, seal or --version")
    except _Usage as e:
        print(f"{_PROG}: error: {e}", file=sys.stderr)
        print(f"hint: {_PROG} --help", file=sys.stderr)
        return 64


if __name__ == "__main__":
    sys.exit(main())
