"""Key bundles v1: one conversation key K for one (conversation, epoch), sealed to one device with
HPKE mode_auth (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) by the provider's key.

A backend seals with :func:`seal_bundle`; a device opens, checks and installs with
:func:`open_bundle`, which raises :class:`BundleError` whose ``reason`` is the first failed check
(SPEC, key bundles): ``malformed_bundle``, ``unsupported_bundle_version``, ``wrong_device``,
``unknown_provider``, ``bundle_authentication_failed``, ``kid_mismatch``, ``bundle_expired``,
``conflicting_key``, ``store_locked``.

>>> from pushseal.bundle import MemoryKeyStore, open_bundle, seal_bundle
>>> from pushseal.hpke import derive_key_pair
>>> device_sk, device_pk = derive_key_pair(bytes(32))
>>> provider_sk, provider_pk = derive_key_pair(bytes([7]) * 32)
>>> text = seal_bundle(bytes(range(32)), "c1", 1, None, provider_sk, device_pk)
>>> open_bundle(text, device_sk, [provider_pk], MemoryKeyStore(), now=1700000000).already_installed
False
"""

from __future__ import annotations

from enum import Enum
from typing import Dict, Iterable, NamedTuple, Optional, Tuple, Union

from cryptography.hazmat.primitives import constant_time

from .errors import PushSealError
from .hpke import HPKEError, public_key, setup_receiver, setup_sender
from .receiver import KEY_NOT_FOUND, KeyFound, KeyLookup
from .strictjson import JSONError, parse_json, to_plain
from .wire import _expand, b64url_decode, b64url_encode, key_id

__all__ = [
    "BUNDLE_VERSION", "BUNDLE_INFO", "NO_EXPIRY", "MAX_TEXT", "BundleReason", "BundleError", "StoreLocked", "BundleHeader",
    "InstalledBundle", "BundleKeyStore", "MemoryKeyStore", "device_key_id", "provider_key_id", "parse_bundle",
    "seal_bundle", "open_bundle", "REGISTRATION_SUITE", "RegistrationError", "device_registration",
    "registration_public_key",
]

BUNDLE_VERSION = 0x01
BUNDLE_INFO = b"pushseal v1 key bundle"
NO_EXPIRY = 0xFFFFFFFFFFFFFFFF
_HEADER = 1 + 16 + 16 + 8 + 8 + 16  # B: 65 bytes
_ENC = 32
_OVERHEAD = _HEADER + _ENC + 32 + 16  # |bundle| = 145 + n (K and the tag around the sealed cid)
_MAX_CID = 256
_MAX_63 = (1 << 63) - 1
MAX_TEXT = 535  # characters of the longest bundle text (401 bytes)


class BundleReason(str, Enum):
    """Why a key bundle was refused, in the order the receiver checks (plus ``store_locked``)."""

    MALFORMED_BUNDLE = "malformed_bundle"
    UNSUPPORTED_BUNDLE_VERSION = "unsupported_bundle_version"
    WRONG_DEVICE = "wrong_device"
    UNKNOWN_PROVIDER = "unknown_provider"
    BUNDLE_AUTHENTICATION_FAILED = "bundle_authentication_failed"
    KID_MISMATCH = "kid_mismatch"
    BUNDLE_EXPIRED = "bundle_expired"
    CONFLICTING_KEY = "conflicting_key"
    STORE_LOCKED = "store_locked"

    def __str__(self) -> str:
        return self.value


class BundleError(PushSealError):
    """A key bundle was refused; ``reason`` is its reason code. Carries no key material."""

    def __init__(self, reason: BundleReason) -> None:
        super().__init__(f"cannot install key bundle: {reason.value}")
        self.reason = reason


class StoreLocked(PushSealError):
    """Raised by a :class:`BundleKeyStore` that cannot be read or written now; reported as
    ``store_locked``."""


def device_key_id(device_public_key: bytes) -> bytes:
    """HKDF-Expand(PRK = the device's X25519 public key, "pushseal v1 device key id", 16)."""
    return _expand(bytes(device_public_key), b"pushseal v1 device key id", 16)


def provider_key_id(provider_public_key: bytes) -> bytes:
    """HKDF-Expand(PRK = the provider's X25519 public key, "pushseal v1 provider key id", 16)."""
    return _expand(bytes(provider_public_key), b"pushseal v1 provider key id", 16)


REGISTRATION_SUITE = "pushseal-v1-x25519"


class RegistrationError(PushSealError, ValueError):
    """A device registration was refused (SPEC §16.1); the message says why."""


def device_registration(device_public_key: bytes) -> str:
    """The registration a device sends to its backend next to its push token (SPEC §16.1):
    ``{"suite":"pushseal-v1-x25519","deviceKeyId":…,"publicKey":…}``."""
    pk = bytes(device_public_key)
    if len(pk) != 32:
        raise ValueError("the device public key must be 32 bytes")
    return (f'{{"suite":"{REGISTRATION_SUITE}","deviceKeyId":"{b64url_encode(device_key_id(pk))}",'
            f'"publicKey":"{b64url_encode(pk)}"}}')


def registration_public_key(registration: Union[str, bytes]) -> bytes:
    """The device public key of a registration, for a backend that seals bundles to it. Raises
    RegistrationError unless it is a strict JSON object whose ``suite`` is
    ``pushseal-v1-x25519``, whose ``publicKey`` is 32 bytes of strict base64url and whose
    ``deviceKeyId`` is that key's device key id (other members are ignored)."""
    data = registration.encode("utf-8") if isinstance(registration, str) else bytes(registration)
    try:
        root = to_plain(parse_json(data))
    except JSONError as e:
        raise RegistrationError(f"not strict JSON: {e}") from None
    if not isinstance(root, dict):
        raise RegistrationError("not a JSON object")
    if root.get("suite") != REGISTRATION_SUITE:
        raise RegistrationError(f"suite is not {REGISTRATION_SUITE}")
    text, id_text = root.get("publicKey"), root.get("deviceKeyId")
    pk = b64url_decode(text) if isinstance(text, str) else None
    if pk is None or len(pk) != 32:
        raise RegistrationError("publicKey is not 32 bytes of strict base64url")
    if not isinstance(id_text, str) or b64url_decode(id_text) != device_key_id(pk):
        raise RegistrationError("deviceKeyId is not the device key id of publicKey")
    return pk


class BundleHeader(NamedTuple):
    """The bundle header B (65 bytes, the HPKE associated data). The conversation id is not in it:
    it is sealed together with K."""

    provider_key_id: bytes
    device_key_id: bytes
    epoch: int
    not_after: int  # the key's last live second (Unix time, inclusive); NO_EXPIRY for no limit
    kid: bytes

    def encode(self) -> bytes:
        """B, byte for byte."""
        return (bytes([BUNDLE_VERSION]) + self.provider_key_id + self.device_key_id + self.epoch.to_bytes(8, "big")
                + self.not_after.to_bytes(8, "big") + self.kid)


def parse_bundle(bundle: Union[str, bytes]) -> Tuple[BundleHeader, bytes, bytes, bytes]:
    """(header, header bytes B, enc, ct) of a bundle (its text or its bytes), after steps 1-3 of
    the checks: ``malformed_bundle`` (text longer than 535 characters or not strict base64url),
    ``unsupported_bundle_version`` (checked before the length), ``malformed_bundle`` (length not
    146...401 bytes, epoch 0 or above 2^63 - 1, notAfter above 2^63 - 1 and not NO_EXPIRY)."""
    if isinstance(bundle, str):
        data = b64url_decode(bundle) if len(bundle) <= MAX_TEXT else None
    else:
        data = bytes(bundle)
    if not data:
        raise BundleError(BundleReason.MALFORMED_BUNDLE)
    if data[0] != BUNDLE_VERSION:
        raise BundleError(BundleReason.UNSUPPORTED_BUNDLE_VERSION)
    epoch, not_after = int.from_bytes(data[33:41], "big"), int.from_bytes(data[41:49], "big")
    if (not 1 <= len(data) - _OVERHEAD <= _MAX_CID or not 1 <= epoch <= _MAX_63
            or (not_after > _MAX_63 and not_after != NO_EXPIRY)):
        raise BundleError(BundleReason.MALFORMED_BUNDLE)
    header = BundleHeader(data[1:17], data[17:33], epoch, not_after, data[49:65])
    return header, data[:_HEADER], data[_HEADER:_HEADER + _ENC], data[_HEADER + _ENC:]


def seal_bundle(key: bytes, conversation: str, epoch: int, not_after: Optional[int], provider_private_key: bytes,
                device_public_key: bytes, *, test_ikm_e: Optional[bytes] = None) -> str:
    """The bundle text (base64url, no padding) of conversation key ``key`` for (``conversation``,
    ``epoch``), sealed to ``device_public_key`` by ``provider_private_key``. ``not_after``: the key's
    last live second (Unix time, inclusive), None for no limit. ``test_ikm_e`` is for test vectors only
    (derives the ephemeral key deterministically). Raises ValueError for invalid arguments."""
    if len(key) != 32 or len(provider_private_key) != 32 or len(device_public_key) != 32:
        raise ValueError("key, provider private key and device public key must be 32 bytes")
    if isinstance(epoch, bool) or not isinstance(epoch, int) or not 1 <= epoch <= _MAX_63:
        raise ValueError("epoch must be 1...2^63-1")
    not_after = NO_EXPIRY if not_after is None else not_after
    if isinstance(not_after, bool) or not isinstance(not_after, int) or not (0 <= not_after <= _MAX_63 or not_after == NO_EXPIRY):
        raise ValueError("not_after must be 0...2^63-1 (None: no limit)")
    if not 1 <= len(conversation.encode("utf-8")) <= _MAX_CID:
        raise ValueError("the conversation must be 1-256 bytes of UTF-8")
    header = BundleHeader(provider_key_id(public_key(provider_private_key)), device_key_id(device_public_key),
                          epoch, not_after, key_id(key)).encode()
    enc, ctx = setup_sender(device_public_key, BUNDLE_INFO, sk_s=provider_private_key, test_ikm_e=test_ikm_e)
    return b64url_encode(header + enc + ctx.seal(header, bytes(key) + conversation.encode("utf-8")))


class InstalledBundle(NamedTuple):
    """A bundle that passed every check and whose key is in the store."""

    header: BundleHeader
    conversation: str  # opened from the sealed part
    already_installed: bool  # the same key was already stored for (conversation, epoch)


class BundleKeyStore:
    """What :func:`open_bundle` needs from the device's key store. Each method raises
    :class:`StoreLocked` when the store cannot be used now. ``open_bundle`` calls ``key_for``,
    ``location_of`` and then ``install`` (steps 10-11): a store shared between threads or processes
    must run each ``open_bundle`` call as one transaction (e.g. under one lock)."""

    def key_for(self, conversation: str, epoch: int) -> Optional[bytes]:
        """The key stored for (conversation, epoch), or None."""
        raise NotImplementedError

    def location_of(self, kid: bytes) -> Optional[Tuple[str, int]]:
        """(conversation, epoch) of the stored key with this kid, or None."""
        raise NotImplementedError

    def install(self, conversation: str, epoch: int, key: bytes, not_after: int) -> None:
        """Stores a new key for (conversation, epoch)."""
        raise NotImplementedError


class MemoryKeyStore(BundleKeyStore):
    """An in-memory key store: installs bundles and is a receiver key source (``lookup``), so a
    notification sealed under an installed key opens. For tests and examples (one thread); a real
    app keeps keys in protected storage."""

    def __init__(self) -> None:
        self._keys: Dict[Tuple[str, int], Tuple[bytes, int]] = {}
        self._kids: Dict[bytes, Tuple[str, int]] = {}

    def key_for(self, conversation: str, epoch: int) -> Optional[bytes]:
        found = self._keys.get((conversation, epoch))
        return None if found is None else found[0]

    def location_of(self, kid: bytes) -> Optional[Tuple[str, int]]:
        return self._kids.get(bytes(kid))

    def install(self, conversation: str, epoch: int, key: bytes, not_after: int) -> None:
        self._keys[(conversation, epoch)] = (bytes(key), not_after)
        self._kids[key_id(key)] = (conversation, epoch)

    def lookup(self, kid: bytes) -> KeyLookup:
        """The receiver's key source: the key with this kid and its conversation."""
        place = self._kids.get(bytes(kid))
        return KEY_NOT_FOUND if place is None else KeyFound(self._keys[place][0], place[0])


def open_bundle(bundle: Union[str, bytes], device_private_key: bytes, pinned_provider_keys: Iterable[bytes],
                store: BundleKeyStore, now: int) -> InstalledBundle:
    """Checks a bundle in the specified order and installs its key (idempotent). Raises
    BundleError with the first failed check's reason; installs nothing then."""
    header, b, enc, ct = parse_bundle(bundle)                                             # steps 1-3
    if header.device_key_id != device_key_id(public_key(device_private_key)):            # step 4
        raise BundleError(BundleReason.WRONG_DEVICE)
    provider = next((bytes(p) for p in pinned_provider_keys if provider_key_id(p) == header.provider_key_id), None)
    if provider is None:                                                                  # step 5
        raise BundleError(BundleReason.UNKNOWN_PROVIDER)
    try:                                                                                  # step 6
        pt = setup_receiver(enc, device_private_key, BUNDLE_INFO, pk_s=provider).open(b, ct)
    except HPKEError:
        raise BundleError(BundleReason.BUNDLE_AUTHENTICATION_FAILED) from None
    key = pt[:32]
    try:                                                                                  # step 7
        conversation = pt[32:].decode("utf-8")
    except UnicodeDecodeError:
        raise BundleError(BundleReason.MALFORMED_BUNDLE) from None
    if not constant_time.bytes_eq(key_id(key), header.kid):                               # step 8
        raise BundleError(BundleReason.KID_MISMATCH)
    if header.not_after != NO_EXPIRY and now > header.not_after:                          # step 9
        raise BundleError(BundleReason.BUNDLE_EXPIRED)
    place = (conversation, header.epoch)
    try:                                                                                  # steps 10-11
        existing = store.key_for(*place)
        where = store.location_of(header.kid)
        if (existing is not None and not constant_time.bytes_eq(existing, key)) or (where is not None and where != place):
            raise BundleError(BundleReason.CONFLICTING_KEY)
        if existing is not None:
            return InstalledBundle(header, conversation, True)
        store.install(conversation, header.epoch, key, header.not_after)
    except StoreLocked:
        raise BundleError(BundleReason.STORE_LOCKED) from None
    return InstalledBundle(header, conversation, False)
