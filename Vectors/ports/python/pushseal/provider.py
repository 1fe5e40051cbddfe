"""Sealing with the provider's size policy (SPEC §6.3, §9): APNs bodies and FCM v1 messages that
always fit, byte for byte what the Swift provider (``NotificationSealer``) emits for the same
content, options, key and salt."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import List, Optional, Tuple, Union

import regex  # type: ignore[import-untyped, unused-ignore]  # (types-regex, when installed, types it)

from .content import MAX_CONTENT_BYTES, Content, escaped_length, json_string
from .errors import ContentError, SealCode, SealError
from .wire import HEADER_BYTES, MAX_ENVELOPE, MIN_ENVELOPE, SALT_BYTES, TAG_BYTES, b64url_encode, decoded_length
from .wire import encoded_length, key_id, opaque_thread_id, pad_to, padded_length, seal_envelope
from .bundle import BundleError, device_key, parse_bundle

__all__ = [
    "OPAQUE", "DEFAULT_PAD_BLOCK", "MAX_PAD_BLOCK", "APNS_LIMIT", "FCM_DATA_LIMIT", "ELLIPSIS", "TextPlaceholder",
    "LocalizedPlaceholder", "APNsOptions", "FCMOptions", "Sizes", "SealedPayload", "Sealer", "grapheme_prefix", "plan", "relevance_score_text",
]

DEFAULT_PAD_BLOCK = 256
MAX_PAD_BLOCK = 4096
APNS_LIMIT = 4096
FCM_DATA_LIMIT = 4096
ELLIPSIS = "\u2026"
_OVERHEAD = HEADER_BYTES + TAG_BYTES
_GRAPHEME = regex.compile(r"\X")
_FCM_DATA_KEY = "pushseal"


class _OpaqueThreadID:
    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE = _OpaqueThreadID()
"""``APNsOptions.thread_id`` default: base64url of the key's thread id (never the conversation id)."""


@dataclass(frozen=True)
class TextPlaceholder:
    """A plain-text alert: ``{"title":…,"body":…}`` (title omitted when None)."""

    body: str = "New message"
    title: Optional[str] = None


@dataclass(frozen=True)
class LocalizedPlaceholder:
    """An on-device localized alert: ``title-loc-key``/``title-loc-args`` and ``loc-key``/``loc-args``."""

    loc_key: str
    loc_args: Tuple[str, ...] = ()
    title_loc_key: Optional[str] = None
    title_loc_args: Tuple[str, ...] = ()


@dataclass(frozen=True)
class APNsOptions:
    """The visible parts of an APNs body (everything here is visible to Apple). ``thread_id``:
    :data:`OPAQUE` (the default), ``None`` (omitted), or an explicit string."""

    placeholder: Union[TextPlaceholder, LocalizedPlaceholder] = TextPlaceholder()
    sound: Optional[str] = None
    thread_id: Union[str, None, _OpaqueThreadID] = OPAQUE
    category: Optional[str] = None
    interruption_level: Optional[str] = None
    relevance_score: Optional[float] = None
    key_bundle: Optional[str] = None  # a key bundle's text, carried in band as "pushseal-bundle" (SPEC §16.7)

    def validate(self) -> None:
        """Raises SealError for options the Swift provider refuses."""
        p = self.placeholder
        if isinstance(p, TextPlaceholder):
            if not p.body:
                raise SealError(SealCode.MISSING_PLACEHOLDER, "the placeholder has no text")
            if p.title == "":
                raise SealError(SealCode.INVALID_PLACEHOLDER, "empty title (use None for no title)")
        elif isinstance(p, LocalizedPlaceholder):
            if not p.loc_key:
                raise SealError(SealCode.MISSING_PLACEHOLDER, "the placeholder has no loc-key")
            if p.title_loc_key == "":
                raise SealError(SealCode.INVALID_PLACEHOLDER, "empty title-loc-key (use None for no title)")
            if p.title_loc_key is None and p.title_loc_args:
                raise SealError(SealCode.INVALID_PLACEHOLDER, "title-loc-args given without a title-loc-key")
        else:
            raise SealError(SealCode.INVALID_PLACEHOLDER, "placeholder must be a TextPlaceholder or LocalizedPlaceholder")
        for name in ("sound", "category"):
            if getattr(self, name) == "":
                raise SealError(SealCode.INVALID_OPTION, f"{name}: empty (use None for none)")
        if self.interruption_level not in (None, "passive", "active", "time-sensitive", "critical"):
            raise SealError(SealCode.INVALID_OPTION, "interruption-level must be passive, active, time-sensitive or critical")
        if self.relevance_score is not None and not (0 <= self.relevance_score <= 1):
            raise SealError(SealCode.INVALID_OPTION, "relevance-score must be a number from 0 to 1")
        if not isinstance(self.thread_id, _OpaqueThreadID) and self.thread_id is not None and (
                not isinstance(self.thread_id, str) or not self.thread_id):
            raise SealError(SealCode.INVALID_OPTION, "thread-id: empty (use None for none)")


@dataclass(frozen=True)
class FCMOptions:
    """An FCM HTTP v1 data message for one registration token."""

    token: str
    priority: str = "high"
    ttl: int = 2419200
    key_bundle: Optional[str] = None  # a key bundle's text, carried in band as data "pushseal-bundle" (SPEC §16.7)

    def validate(self) -> None:
        """Raises SealError for a malformed token, priority or time to live."""
        if not 1 <= len(self.token.encode("utf-8")) <= 4096 or any(
                not 0x21 <= ord(c) <= 0x7E or c in '"\\' for c in self.token):
            raise SealError(SealCode.INVALID_FCM_TOKEN, "1 to 4096 bytes of visible ASCII other than '\"' and '\\'")
        if self.priority not in ("high", "normal"):
            raise SealError(SealCode.INVALID_OPTION, "priority must be high or normal")
        if isinstance(self.ttl, bool) or not isinstance(self.ttl, int) or not 0 <= self.ttl <= 2419200:
            raise SealError(SealCode.INVALID_OPTION, "ttl must be 0 to 2419200 seconds")


@dataclass(frozen=True)
class Sizes:
    """The exact sizes of one payload (the same figures the Swift provider reports)."""

    content: int
    padded: int
    envelope: int
    wire: int
    payload: int
    limited: int
    limit: int


@dataclass(frozen=True)
class SealedPayload:
    """A payload ready to send. ``path`` is ``complete``, ``truncated`` or ``content_free``."""

    body: bytes
    path: str
    sizes: Sizes
    wire: str
    content: Content

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode("utf-8")


@dataclass(frozen=True)
class _Frame:
    prefix: bytes
    suffix: bytes
    overhead: int
    limit: int


class Sealer:
    """Seals contents under a conversation key with the size policy. Salts are fresh random bytes;
    ``test_salt`` exists for test vectors only (a repeated salt under one key breaks
    confidentiality)."""

    def __init__(self, pad_block: int = DEFAULT_PAD_BLOCK) -> None:
        if isinstance(pad_block, bool) or not isinstance(pad_block, int) or not 1 <= pad_block <= MAX_PAD_BLOCK:
            raise SealError(SealCode.INVALID_PAD_BLOCK, f"pad block {pad_block} is outside 1...{MAX_PAD_BLOCK}")
        self.pad_block = pad_block

    def seal_apns(self, content: Content, key: bytes, options: APNsOptions = APNsOptions(), *,
                  test_salt: Optional[bytes] = None) -> SealedPayload:
        """The APNs JSON body (at most 4096 bytes). Raises SealError. With ``options.key_bundle``
        the bundle is counted first and the body shortened to make room for it."""
        _validate(content)
        options.validate()
        _check_bundle(options.key_bundle, key)
        return self._seal(content, key, _apns_frame(options, key), test_salt)

    def seal_fcm(self, content: Content, key: bytes, options: FCMOptions, *,
                 test_salt: Optional[bytes] = None) -> SealedPayload:
        """The FCM HTTP v1 message (data map at most 4096 bytes). Raises SealError. With
        ``options.key_bundle`` the bundle is counted first and the body shortened to make room for it."""
        _validate(content)
        options.validate()
        _check_bundle(options.key_bundle, key)
        return self._seal(content, key, _fcm_frame(options), test_salt)

    def seal_apns_for_device(self, content: Content, conversation_key: bytes, device_key_id: bytes,
                             options: APNsOptions = APNsOptions(), *, test_salt: Optional[bytes] = None) -> SealedPayload:
        """:meth:`seal_apns` for one device: sealed under that device's key
        K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) of the
        conversation key K (SPEC §4.4), so only that device opens it. Raises SealError."""
        return self.seal_apns(content, _device_key(conversation_key, device_key_id), options, test_salt=test_salt)

    def seal_fcm_for_device(self, content: Content, conversation_key: bytes, device_key_id: bytes,
                            options: FCMOptions, *, test_salt: Optional[bytes] = None) -> SealedPayload:
        """:meth:`seal_fcm` for one device, under its key K_d (see :meth:`seal_apns_for_device`)."""
        return self.seal_fcm(content, _device_key(conversation_key, device_key_id), options, test_salt=test_salt)

    def _seal(self, content: Content, key: bytes, frame: _Frame, salt: Optional[bytes]) -> SealedPayload:
        if len(key) != 32:
            raise SealError(SealCode.INVALID_KEY, "a conversation key is 32 bytes")
        if salt is not None and len(salt) != SALT_BYTES:
            raise SealError(SealCode.INVALID_SALT, f"salt must be 24 bytes, got {len(salt)}")
        room = frame.limit - frame.overhead
        largest = min(MAX_ENVELOPE, decoded_length(room)) if room >= 0 else 0
        if largest < MIN_ENVELOPE:
            raise _does_not_fit(content, frame)
        max_padded = largest - _OVERHEAD
        budget = min(MAX_CONTENT_BYTES, max_padded - 1)
        planned, path = plan(content, budget)
        if planned is None:
            raise _does_not_fit(content, frame)
        data = planned.encode()
        padded = min(padded_length(len(data), self.pad_block), max_padded)
        envelope = seal_envelope(key, salt if salt is not None else os.urandom(SALT_BYTES), pad_to(data, padded))
        wire = b64url_encode(envelope)
        body = frame.prefix + wire.encode("ascii") + frame.suffix
        sizes = Sizes(len(data), padded, len(envelope), len(wire), len(body), frame.overhead + len(wire), frame.limit)
        return SealedPayload(body, path, sizes, wire, planned)


def plan(content: Content, budget: int) -> Tuple[Optional[Content], str]:
    """What to seal so the encoded content is at most ``budget`` bytes (SPEC §9.4, §9.5)."""
    if len(content.encode()) <= budget:
        return content, "complete"
    if content.body is not None:
        shell = content.replace(body="", trunc=True)
        prefix_budget = budget - len(shell.encode()) - len(ELLIPSIS.encode("utf-8"))
        if prefix_budget >= 0:
            return shell.replace(body=grapheme_prefix(content.body, prefix_budget) + ELLIPSIS), "truncated"
    free = content.content_free
    if len(free.encode()) <= budget:
        return free, "content_free"
    return None, "does_not_fit"


def grapheme_prefix(text: str, escaped_budget: int) -> str:
    """The longest prefix of ``text`` that ends at an extended grapheme cluster boundary
    (UAX #29, via the ``regex`` module's ``\\X``) and whose JSON-escaped length is at most
    ``escaped_budget``."""
    end = used = 0
    for match in _GRAPHEME.finditer(text):
        used += escaped_length(match.group())
        if used > escaped_budget:
            break
        end = match.end()
    return text[:end]


def _validate(content: Content) -> None:
    try:
        content.validate()
    except ContentError as e:
        raise SealError(SealCode.INVALID_CONTENT, str(e)) from None
    if content.body is None and not content.is_content_free_shape():
        raise SealError(SealCode.INVALID_CONTENT, "body is required except in the content-free form (cid, mid, ts)")


def _does_not_fit(content: Content, frame: _Frame) -> SealError:
    smallest = len(content.content_free.encode()) + 1 + _OVERHEAD
    count = frame.overhead + encoded_length(smallest)
    return SealError(SealCode.DOES_NOT_FIT, f"even the content-free payload is {count} bytes, more than the "
                                     f"{frame.limit}-byte limit (shorten the placeholder or outer fields)")


def relevance_score_text(score: float) -> str:
    """round(score × 1000) thousandths (half away from zero), as ``0``, ``1`` or ``0.ddd``."""
    x = score * 1000
    whole = math.floor(x)
    thousandths = whole + 1 if x - whole >= 0.5 else whole
    if thousandths <= 0:
        return "0"
    if thousandths >= 1000:
        return "1"
    return "0." + ("%03d" % thousandths).rstrip("0")


def _apns_frame(options: APNsOptions, key: bytes) -> _Frame:
    out: List[str] = ['{"aps":{"alert":{']
    p = options.placeholder
    if isinstance(p, TextPlaceholder):
        if p.title is not None:
            out.append(f'"title":{json_string(p.title)},')
        out.append(f'"body":{json_string(p.body)}')
    else:
        if p.title_loc_key is not None:
            out.append(f'"title-loc-key":{json_string(p.title_loc_key)}')
            if p.title_loc_args:
                out.append(',"title-loc-args":[' + ",".join(json_string(a) for a in p.title_loc_args) + "]")
            out.append(",")
        out.append(f'"loc-key":{json_string(p.loc_key)}')
        if p.loc_args:
            out.append(',"loc-args":[' + ",".join(json_string(a) for a in p.loc_args) + "]")
    out.append('},"mutable-content":1')
    if options.sound is not None:
        out.append(f',"sound":{json_string(options.sound)}')
    if options.thread_id is not None:
        tid = opaque_thread_id(key) if isinstance(options.thread_id, _OpaqueThreadID) else options.thread_id
        out.append(f',"thread-id":{json_string(tid)}')
    if options.category is not None:
        out.append(f',"category":{json_string(options.category)}')
    if options.interruption_level is not None:
        out.append(f',"interruption-level":{json_string(options.interruption_level)}')
    if options.relevance_score is not None:
        out.append(f',"relevance-score":{relevance_score_text(options.relevance_score)}')
    out.append('},"pushseal":"')
    prefix = "".join(out).encode("utf-8")
    suffix = b'"}'
    return _carrying(_Frame(prefix, suffix, len(prefix) + len(suffix), APNS_LIMIT), options.key_bundle, json_bytes=True)


def _fcm_frame(options: FCMOptions) -> _Frame:
    prefix = f'{{"message":{{"token":{json_string(options.token)},"data":{{"pushseal":"'.encode("utf-8")
    suffix = f'"}},"android":{{"priority":{json_string(options.priority)},"ttl":"{options.ttl}s"}}}}}}'.encode("utf-8")
    return _carrying(_Frame(prefix, suffix, len(_FCM_DATA_KEY), FCM_DATA_LIMIT), options.key_bundle, json_bytes=False)


_BUNDLE_MEMBER = "pushseal-bundle"


def _device_key(conversation_key: bytes, device_key_id: bytes) -> bytes:
    if len(conversation_key) != 32:
        raise SealError(SealCode.INVALID_KEY, "a conversation key is 32 bytes")
    if len(device_key_id) != 16:
        raise SealError(SealCode.INVALID_KEY, "a device key id is 16 bytes")
    return device_key(conversation_key, device_key_id)


def _check_bundle(bundle: Optional[str], key: bytes) -> None:
    """An in-band bundle must be a format-2 bundle (its kid is sealed: whether it delivers the
    notification's key is the device's step 8b, envelope_mismatch)."""
    if bundle is None:
        return
    try:
        parse_bundle(bundle)
    except BundleError as e:
        raise SealError(SealCode.INVALID_OPTION, f"keyBundle: {e.reason.value}") from None


def _carrying(frame: _Frame, bundle: Optional[str], json_bytes: bool) -> _Frame:
    """The frame with the bundle as a "pushseal-bundle" member right after the wire string, counted
    first: 21 + |text| JSON bytes (APNs), or 15 + |text| data-map bytes (FCM)."""
    if bundle is None:
        return frame
    added = f'","{_BUNDLE_MEMBER}":"{bundle}'.encode("ascii")
    counted = len(added) if json_bytes else len(_BUNDLE_MEMBER) + len(bundle)
    return _Frame(frame.prefix, added + frame.suffix, frame.overhead + counted, frame.limit)
