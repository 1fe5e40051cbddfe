"""Opening payloads (SPEC §10): locate the envelope, run the checks in their exact order, and
return the content or the reason code."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Protocol, Tuple, Union

from .content import Content
from .errors import ContentError, OpenError, Reason
from .strictjson import JObj, JSONError, parse_json
from .wire import HEADER_BYTES, MAX_ENVELOPE, MAX_WIRE_CHARS, MIN_ENVELOPE, VERSION, b64url_decode, key_id
from .wire import int63, open_envelope, unpad

__all__ = [
    "DEFAULT_MAX_AGE", "DEFAULT_MAX_FUTURE_SKEW", "KeyFound", "KEY_NOT_FOUND", "KEY_LOCKED", "KeyLookup",
    "KeySource", "SingleKeySource", "Opened", "Receiver", "open_payload", "open_wire",
]

DEFAULT_MAX_AGE = 2678400
DEFAULT_MAX_FUTURE_SKEW = 600


@dataclass(frozen=True)
class KeyFound:
    """A key source's answer when it holds the key: K, the conversation it is stored for, and the
    key's authenticated retire-by time (None while it is current; SPEC §10.2 step 11)."""

    key: bytes
    conversation: str
    retire_by: Optional[int] = None


KEY_NOT_FOUND = "not_found"
"""A key source's answer when it has no key with that id (→ ``unknown_key``)."""
KEY_LOCKED = "locked"
"""A key source's answer when it has the id but cannot read the key now (→ ``store_locked``)."""

KeyLookup = Union[KeyFound, str]


class KeySource(Protocol):
    """The receiver's key lookup (SPEC §2). Implementations MUST derive the kid from each stored K."""

    def lookup(self, kid: bytes) -> KeyLookup:
        """KeyFound, KEY_NOT_FOUND or KEY_LOCKED for a 16-byte key id."""
        ...


class SingleKeySource:
    """A key source holding one conversation key (``locked=True`` answers KEY_LOCKED for it)."""

    def __init__(self, key: bytes, conversation: str, locked: bool = False, retire_by: Optional[int] = None) -> None:
        if len(key) != 32:
            raise ValueError("a conversation key is 32 bytes")
        self._key, self._kid, self._conversation, self.locked = bytes(key), key_id(key), conversation, locked
        self.retire_by = retire_by

    def lookup(self, kid: bytes) -> KeyLookup:
        if kid != self._kid:
            return KEY_NOT_FOUND
        return KEY_LOCKED if self.locked else KeyFound(self._key, self._conversation, self.retire_by)


@dataclass(frozen=True)
class Opened:
    """A decrypted payload: the content, its exact bytes, and the duplicate flag."""

    content: Content
    content_bytes: bytes
    duplicate: bool
    conflict: bool = False
    """(cid, mid) was delivered before with a different envelope (always with ``duplicate``)."""

    @property
    def requires_fetch(self) -> bool:
        """A content-free notification (no body): fetch the message by (cid, mid)."""
        return self.content.requires_fetch

    @property
    def truncated(self) -> bool:
        """The provider shortened the body (``trunc``); the body, even empty, is still shown."""
        return self.content.trunc


class Receiver:
    """Opens payloads with a key source, a clock and a duplicate log.

    ``seen(cid, mid)`` answers whether the pair was delivered before and records it; the default
    keeps no log (never a duplicate). ``record(cid, mid, envelope)``, when given, is used instead:
    it keeps a digest of the first envelope of each pair and answers ``"first"``, ``"duplicate"``
    or ``"conflict"`` (the pair again with a different envelope, SPEC §10.4)."""

    def __init__(self, key_source: KeySource, *, max_age: int = DEFAULT_MAX_AGE,
                 max_future_skew: int = DEFAULT_MAX_FUTURE_SKEW, clock: Callable[[], int] = lambda: int(time.time()),
                 seen: Callable[[str, str], bool] = lambda cid, mid: False,
                 record: Optional[Callable[[str, str, bytes], str]] = None) -> None:
        self.key_source = key_source
        self.max_age, self.max_future_skew = int63("max_age", max_age), int63("max_future_skew", max_future_skew)
        self.clock, self.seen, self.record = clock, seen, record

    def open(self, payload: Union[bytes, str]) -> Opened:
        """Opens an APNs body, an FCM data map or an FCM v1 message. Raises OpenError."""
        if not isinstance(payload, (bytes, bytearray, memoryview, str)):
            raise TypeError(f"open() needs the payload as received: its bytes or its JSON text, not a parsed {type(payload).__name__} "
                            "(json.loads drops duplicate members and the strict checks of SPEC §5.2)")
        data = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
        reason, wire = _locate(data)
        if reason is not None:
            raise OpenError(reason)
        return self.open_wire(wire)

    def open_wire(self, wire: object) -> Opened:
        """Opens the wire string alone (steps 2-12 of SPEC §10.2). Raises OpenError."""
        if not isinstance(wire, str) or len(wire) > MAX_WIRE_CHARS:                  # step 2
            raise OpenError(Reason.MALFORMED_ENVELOPE)
        env = b64url_decode(wire)
        if not env:
            raise OpenError(Reason.MALFORMED_ENVELOPE)
        if env[0] != VERSION:                                                        # step 3
            raise OpenError(Reason.UNSUPPORTED_VERSION)
        if not MIN_ENVELOPE <= len(env) <= MAX_ENVELOPE:                             # step 4
            raise OpenError(Reason.MALFORMED_ENVELOPE)
        found = self.key_source.lookup(env[1:17])
        if found == KEY_NOT_FOUND:                                                   # step 5
            raise OpenError(Reason.UNKNOWN_KEY)
        if not isinstance(found, KeyFound):                                          # step 6
            raise OpenError(Reason.STORE_LOCKED)
        if key_id(found.key) != env[1:17]:  # a key source must derive the kid from K
            raise OpenError(Reason.UNKNOWN_KEY)
        plaintext = open_envelope(found.key, env)                                    # step 7
        if plaintext is None:
            raise OpenError(Reason.AUTHENTICATION_FAILED)
        content_bytes = unpad(plaintext)                                             # step 8
        if content_bytes is None:
            raise OpenError(Reason.MALFORMED_CONTENT)
        try:
            content = Content.decode(content_bytes)
        except ContentError:
            raise OpenError(Reason.MALFORMED_CONTENT) from None
        if content.cid.encode("utf-8") != found.conversation.encode("utf-8"):       # step 9
            raise OpenError(Reason.CONVERSATION_MISMATCH)
        now = int63("clock()", self.clock())                                         # step 10
        if now - content.ts > self.max_age or content.ts - now > self.max_future_skew:
            raise OpenError(Reason.STALE)
        retire_by = None if found.retire_by is None else int63("retire_by", found.retire_by)
        if retire_by is not None and content.ts > retire_by + self.max_future_skew:  # step 11
            raise OpenError(Reason.RETIRED_KEY)
        if self.record is None:                                                      # step 12
            return Opened(content, content_bytes, bool(self.seen(content.cid, content.mid)))
        logged = self.record(content.cid, content.mid, bytes(env))
        if logged not in ("first", "duplicate", "conflict"):
            raise ValueError("record() must answer first, duplicate or conflict")
        return Opened(content, content_bytes, logged != "first", logged == "conflict")


def open_payload(payload: Union[bytes, str], key_source: KeySource, **options: Any) -> Opened:
    """``Receiver(key_source, **options).open(payload)``."""
    return Receiver(key_source, **options).open(payload)


def open_wire(wire: str, key_source: KeySource, **options: Any) -> Opened:
    """``Receiver(key_source, **options).open_wire(wire)``."""
    return Receiver(key_source, **options).open_wire(wire)


def _locate(payload: bytes) -> Tuple[Optional[Reason], object]:
    """SPEC §10.1 and the payload part of steps 1-2."""
    try:
        root = parse_json(payload, record_dups=True)
    except JSONError:
        return Reason.NOT_SEALED, None
    if not isinstance(root, JObj):
        return Reason.NOT_SEALED, None
    holder, members = root, root.get_all("pushseal")
    if not members:
        msgs = root.get_all("message")
        if len(msgs) == 1 and isinstance(msgs[0], JObj):
            datas = msgs[0].get_all("data")
            if len(datas) == 1 and isinstance(datas[0], JObj):
                holder, members = datas[0], datas[0].get_all("pushseal")
    if not members:
        return Reason.NOT_SEALED, None

    def other_dups(v: object) -> bool:
        if isinstance(v, JObj):
            dups = v.dup_names()
            if v is holder:
                dups.discard("pushseal")
            return bool(dups) or any(other_dups(x) for _, x in v.pairs)
        if isinstance(v, list):
            return any(other_dups(x) for x in v)
        return False

    if other_dups(root):
        return Reason.NOT_SEALED, None
    if len(members) > 1:
        return Reason.MALFORMED_ENVELOPE, None
    return None, members[0]
