"""Key bundles, format 2: one device key K_d for one (conversation, epoch), sealed to one device
with HPKE mode_auth (DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305) by the provider's
key (SPEC §16). The provider's conversation key K never leaves the provider: a bundle carries
K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) (SPEC §4.4).

A backend seals with :func:`seal_bundle`; a device opens, checks and installs with
:func:`open_bundle`, which raises :class:`BundleError` whose ``reason`` is the first failed check
(SPEC §16.5): ``malformed_bundle``, ``unsupported_bundle_version`` (format 1 included),
``unknown_provider``, ``bundle_authentication_failed``, ``kid_mismatch``, ``bundle_expired``,
``envelope_mismatch`` (in band), ``epoch_purged``, ``epoch_out_of_range``, ``conflicting_key``,
``store_locked``. A bundle that installs gives ``installed``, ``installed_retired`` or
``already_installed``.

>>> from pushseal.bundle import MemoryKeyStore, open_bundle, seal_bundle
>>> from pushseal.hpke import derive_key_pair
>>> device_sk, device_pk = derive_key_pair(bytes(32))
>>> provider_sk, provider_pk = derive_key_pair(bytes([7]) * 32)
>>> text = seal_bundle(bytes(range(32)), device_pk, "c1", 1, 1700000000, None, 1700086400, provider_sk)
>>> open_bundle(text, device_sk, [provider_pk], MemoryKeyStore(), now=1700000000).outcome
'installed'
"""

from __future__ import annotations

from typing import Dict, Iterable, List, NamedTuple, Optional, Tuple, Union

from cryptography.hazmat.primitives import constant_time

from .errors import CodeEnum, PushSealError
from .hpke import HPKEError, public_key, setup_receiver, setup_sender
from .receiver import KEY_NOT_FOUND, KeyFound, KeyLookup
from .strictjson import JSONError, parse_json, to_plain
from .wire import _expand, b64url_decode, b64url_encode, int63, key_id

__all__ = [
    "BUNDLE_VERSION", "BUNDLE_INFO", "BUNDLE_BYTES", "PLAINTEXT_BYTES", "NO_RETIRE_BY", "NO_EXPIRY", "MAX_TEXT",
    "MAX_EPOCH_STEP", "BundleReason", "BundleError", "StoreLocked", "OpenedBundle", "ConversationRecord",
    "InstalledBundle", "BundleKeyStore", "MemoryKeyStore", "device_key", "device_key_id", "provider_key_id",
    "parse_bundle", "decode_plaintext", "seal_bundle", "open_bundle", "REGISTRATION_SUITE", "RegistrationError",
    "device_registration", "registration_public_key",
]

BUNDLE_VERSION = 0x02
BUNDLE_INFO = b"pushseal v1 key bundle 2"
_DEVICE_KEY_INFO = b"pushseal v1 device conversation key"
NO_RETIRE_BY = 0xFFFFFFFFFFFFFFFF  # the retireBy field of a bundle whose epoch was current when sealed
NO_EXPIRY = NO_RETIRE_BY  # kept for callers of format 1; a format-2 bundle always expires
_HEADER = 1 + 16  # B: version || provider key id
_ENC = 32
PLAINTEXT_BYTES = 338
BUNDLE_BYTES = _HEADER + _ENC + PLAINTEXT_BYTES + 16  # 403, for every bundle
_MAX_CID = 256
_MAX_63 = (1 << 63) - 1
MAX_TEXT = 1024  # a longer text is refused before decoding (every bundle is 538 characters)
MAX_EPOCH_STEP = 65536  # the newest epoch moves by at most this much per bundle (rule 9b)
INSTALLED = "installed"
INSTALLED_RETIRED = "installed_retired"
ALREADY_INSTALLED = "already_installed"


class BundleReason(CodeEnum):
    """Why a key bundle was refused, in the order the device checks (plus ``store_locked``)."""

    MALFORMED_BUNDLE = "malformed_bundle"
    UNSUPPORTED_BUNDLE_VERSION = "unsupported_bundle_version"
    UNKNOWN_PROVIDER = "unknown_provider"
    BUNDLE_AUTHENTICATION_FAILED = "bundle_authentication_failed"
    KID_MISMATCH = "kid_mismatch"
    BUNDLE_EXPIRED = "bundle_expired"
    ENVELOPE_MISMATCH = "envelope_mismatch"
    EPOCH_PURGED = "epoch_purged"
    EPOCH_OUT_OF_RANGE = "epoch_out_of_range"
    CONFLICTING_KEY = "conflicting_key"
    STORE_LOCKED = "store_locked"


class BundleError(PushSealError):
    """A key bundle was refused; ``reason`` is its reason code. Carries no key material."""

    def __init__(self, reason: BundleReason) -> None:
        super().__init__(f"cannot install key bundle: {reason.value}")
        self.reason = reason


class StoreLocked(PushSealError):
    """Raised by a :class:`BundleKeyStore` that cannot be read or written now; reported as
    ``store_locked``."""


def device_key(conversation_key: bytes, device_key_id: bytes) -> bytes:
    """K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) (SPEC §4.4):
    the key of one device for one (conversation, epoch). Its kid and thread-id are derived from it
    as from any key (:func:`pushseal.key_id`, :func:`pushseal.opaque_thread_id`)."""
    k, d = bytes(conversation_key), bytes(device_key_id)
    if len(k) != 32 or len(d) != 16:
        raise ValueError("the conversation key is 32 bytes and the device key id 16 bytes")
    return _expand(k, _DEVICE_KEY_INFO + d, 32)


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


def parse_bundle(bundle: Union[str, bytes]) -> Tuple[bytes, bytes, bytes]:
    """(header B, enc, ct) of a bundle (its text or its bytes), after steps 1-3 of the checks:
    ``malformed_bundle`` (text longer than 1024 characters or not strict base64url),
    ``unsupported_bundle_version`` (checked before the length, so format 1 reports this),
    ``malformed_bundle`` (not 403 bytes). The provider key id is ``B[1:17]``."""
    if isinstance(bundle, str):
        data = b64url_decode(bundle) if len(bundle) <= MAX_TEXT else None
    else:
        data = bytes(bundle)
    if not data:
        raise BundleError(BundleReason.MALFORMED_BUNDLE)
    if data[0] != BUNDLE_VERSION:
        raise BundleError(BundleReason.UNSUPPORTED_BUNDLE_VERSION)
    if len(data) != BUNDLE_BYTES:
        raise BundleError(BundleReason.MALFORMED_BUNDLE)
    return data[:_HEADER], data[_HEADER:_HEADER + _ENC], data[_HEADER + _ENC:]


def _is_identifier(cid: bytes) -> bool:
    """SPEC §5.1's identifier rule on UTF-8 bytes: 1-256 bytes of valid UTF-8, no C0 control."""
    try:
        text = cid.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return 1 <= len(cid) <= _MAX_CID and not any(ord(ch) < 0x20 for ch in text)


class OpenedBundle(NamedTuple):
    """The sealed fields of a bundle (SPEC §16.3), after the range checks of step 6. ``key`` is K_d."""

    key: bytes
    kid: bytes
    epoch: int
    since: int
    retire_by: Optional[int]  # None: the epoch was current when sealed
    expires: int
    conversation: str


def decode_plaintext(pt: bytes) -> OpenedBundle:
    """The fields of a 338-byte plaintext; ``malformed_bundle`` when one is out of range (step 6):
    epoch 1...2^63-1, since <= 2^63-1, retireBy all ones or since...2^63-1, expires <= 2^63-1,
    n 1...256, zero padding, a UTF-8 §5.1 identifier. The kid is not checked here (step 7)."""
    if len(pt) != PLAINTEXT_BYTES:
        raise BundleError(BundleReason.MALFORMED_BUNDLE)
    epoch, since, retire_by, expires = (int.from_bytes(pt[o:o + 8], "big") for o in (48, 56, 64, 72))
    n = int.from_bytes(pt[80:82], "big")
    if (not 1 <= epoch <= _MAX_63 or since > _MAX_63 or expires > _MAX_63
            or not (retire_by == NO_RETIRE_BY or since <= retire_by <= _MAX_63)
            or not 1 <= n <= _MAX_CID or any(pt[82 + n:]) or not _is_identifier(pt[82:82 + n])):
        raise BundleError(BundleReason.MALFORMED_BUNDLE)
    return OpenedBundle(pt[:32], pt[32:48], epoch, since, None if retire_by == NO_RETIRE_BY else retire_by, expires,
                        pt[82:82 + n].decode("utf-8"))


def seal_bundle(conversation_key: bytes, device_public_key: bytes, conversation: str, epoch: int, since: int,
                retire_by: Optional[int], expires: int, provider_private_key: bytes, *,
                test_ikm_e: Optional[bytes] = None) -> str:
    """The bundle text (538 characters of base64url) delivering the device key K_d of
    ``conversation_key`` (the provider's K of (``conversation``, ``epoch``)) to the device whose
    X25519 public key is ``device_public_key``, sealed by ``provider_private_key`` (SPEC §16.4).
    ``since``: when the epoch became current; ``retire_by``: None while it is current, else its last
    current second (``since <= retire_by``); ``expires``: the last second the bundle may be installed
    (e.g. now + 30 days). ``test_ikm_e`` is for test vectors only (derives the ephemeral key
    deterministically). Raises ValueError for invalid arguments."""
    if len(conversation_key) != 32 or len(provider_private_key) != 32 or len(device_public_key) != 32:
        raise ValueError("conversation key, provider private key and device public key must be 32 bytes")
    if int63("epoch", epoch) == 0:
        raise ValueError("epoch must be 1...2^63-1")
    int63("since", since)
    int63("expires", expires)
    if retire_by is not None and int63("retire_by", retire_by) < since:
        raise ValueError("retire_by must not be before since")
    cid = conversation.encode("utf-8") if isinstance(conversation, str) else b""
    if not _is_identifier(cid):
        raise ValueError("the conversation must be 1-256 bytes of UTF-8 without a control character")
    kd = device_key(conversation_key, device_key_id(device_public_key))
    pt = (kd + key_id(kd) + epoch.to_bytes(8, "big") + since.to_bytes(8, "big")
          + (NO_RETIRE_BY if retire_by is None else retire_by).to_bytes(8, "big") + expires.to_bytes(8, "big")
          + len(cid).to_bytes(2, "big") + cid.ljust(_MAX_CID, b"\x00"))
    header = bytes([BUNDLE_VERSION]) + provider_key_id(public_key(provider_private_key))
    enc, ctx = setup_sender(device_public_key, BUNDLE_INFO, sk_s=provider_private_key, test_ikm_e=test_ikm_e)
    return b64url_encode(header + enc + ctx.seal(header, pt))


class ConversationRecord(NamedTuple):
    """A device's per-conversation record (SPEC §16.5 step 9): the high-water epoch H (the newest
    installed from a bundle), its since time S_H, and the purge tombstone P (0: nothing purged)."""

    high_water: int
    high_water_since: int
    purged_through: int = 0


class InstalledBundle(NamedTuple):
    """A bundle that passed every check and whose key is in the store."""

    outcome: str  # "installed", "installed_retired" or "already_installed"
    bundle: OpenedBundle
    not_after: Optional[int]  # the stored key's not-after time afterwards (None: current)
    retire_earlier_at: Optional[int]  # when a new newest epoch retired every earlier one (9e), else None
    record: ConversationRecord  # the conversation record afterwards

    @property
    def conversation(self) -> str:
        """The conversation id (opened from the sealed part)."""
        return self.bundle.conversation

    @property
    def already_installed(self) -> bool:
        """True when the same key was already stored for (conversation, epoch)."""
        return self.outcome == ALREADY_INSTALLED


class BundleKeyStore:
    """What :func:`open_bundle` needs from the device's key store. Each method raises
    :class:`StoreLocked` when the store cannot be used now. ``open_bundle`` reads and then writes
    (step 9): a store shared between threads or processes must run each ``open_bundle`` call as one
    transaction (e.g. under one lock). Kids MUST be derived from the stored keys."""

    def key_for(self, conversation: str, epoch: int) -> Optional[Tuple[bytes, Optional[int]]]:
        """(key, not-after or None) stored for (conversation, epoch), or None."""
        raise NotImplementedError

    def location_of(self, kid: bytes) -> Optional[Tuple[str, int]]:
        """(conversation, epoch) of the stored key with this kid, or None."""
        raise NotImplementedError

    def record(self, conversation: str) -> Optional[ConversationRecord]:
        """The conversation record; without one, the newest stored epoch and its created time."""
        raise NotImplementedError

    def started_above(self, conversation: str, epoch: int) -> Optional[int]:
        """The earliest created time (a bundle-installed key's start, min(since, install time)) of the
        conversation's stored keys with an epoch above ``epoch``, or None when there is none (step 9f)."""
        raise NotImplementedError

    def install(self, conversation: str, epoch: int, key: bytes, not_after: Optional[int], created: int) -> None:
        """Stores a new key for (conversation, epoch) with created time ``created`` (from a bundle: its start,
        min(since, install time))."""
        raise NotImplementedError

    def set_not_after(self, conversation: str, epoch: int, not_after: int) -> None:
        """Sets the not-after time of the stored key of (conversation, epoch)."""
        raise NotImplementedError

    def retire_earlier(self, conversation: str, epoch: int, at: int) -> None:
        """Every stored key of the conversation with an epoch below ``epoch`` gets
        not-after := min(its not-after, at)."""
        raise NotImplementedError

    def set_record(self, conversation: str, record: ConversationRecord) -> None:
        """Writes the conversation record."""
        raise NotImplementedError


class MemoryKeyStore(BundleKeyStore):
    """An in-memory key store: installs bundles and is a receiver key source (``lookup``, with each
    key's retire-by time), so a notification sealed under an installed key opens. For tests and
    examples (one thread); a real app keeps keys and records in protected storage."""

    def __init__(self) -> None:
        self._keys: Dict[Tuple[str, int], Tuple[bytes, Optional[int], int]] = {}  # key, not-after, created
        self._kids: Dict[bytes, Tuple[str, int]] = {}
        self._records: Dict[str, ConversationRecord] = {}

    def key_for(self, conversation: str, epoch: int) -> Optional[Tuple[bytes, Optional[int]]]:
        found = self._keys.get((conversation, epoch))
        return None if found is None else (found[0], found[1])

    def location_of(self, kid: bytes) -> Optional[Tuple[str, int]]:
        return self._kids.get(bytes(kid))

    def record(self, conversation: str) -> Optional[ConversationRecord]:
        if conversation in self._records:
            return self._records[conversation]
        epochs = [(e, row[2]) for (c, e), row in self._keys.items() if c == conversation]
        return ConversationRecord(*max(epochs)) if epochs else None

    def started_above(self, conversation: str, epoch: int) -> Optional[int]:
        starts = [row[2] for (c, e), row in self._keys.items() if c == conversation and e > epoch]
        return min(starts) if starts else None

    def install(self, conversation: str, epoch: int, key: bytes, not_after: Optional[int], created: int = 0) -> None:
        """Stores a key for (conversation, epoch) (also for adding one by hand, as a test's fixture)."""
        if len(key) != 32:
            raise ValueError("a key is 32 bytes")
        self._keys[(conversation, epoch)] = (bytes(key), not_after, created)
        self._kids[key_id(key)] = (conversation, epoch)

    def created_at(self, conversation: str, epoch: int) -> Optional[int]:
        """The created time of the stored key of (conversation, epoch), or None."""
        found = self._keys.get((conversation, epoch))
        return None if found is None else found[2]

    def set_not_after(self, conversation: str, epoch: int, not_after: int) -> None:
        key, _, created = self._keys[(conversation, epoch)]
        self._keys[(conversation, epoch)] = (key, not_after, created)

    def retire_earlier(self, conversation: str, epoch: int, at: int) -> None:
        for (c, e), (key, not_after, created) in list(self._keys.items()):
            if c == conversation and e < epoch:
                self._keys[(c, e)] = (key, at if not_after is None else min(not_after, at), created)

    def set_record(self, conversation: str, record: ConversationRecord) -> None:
        self._records[conversation] = record

    def purge(self, conversation: str, epoch: int) -> None:
        """Deletes the key of (conversation, epoch) and sets the tombstone P := max(P, epoch): a
        purged epoch never comes back (``epoch_purged``)."""
        place = (conversation, epoch)
        if place in self._keys:
            del self._kids[key_id(self._keys.pop(place)[0])]
        old = self.record(conversation) or ConversationRecord(0, 0, 0)
        self._records[conversation] = old._replace(purged_through=max(old.purged_through, epoch))

    def lookup(self, kid: bytes) -> KeyLookup:
        """The receiver's key source: the key with this kid, its conversation and retire-by time."""
        place = self._kids.get(bytes(kid))
        if place is None:
            return KEY_NOT_FOUND
        key, not_after, _ = self._keys[place]
        return KeyFound(key, place[0], not_after)


def open_bundle(bundle: Union[str, bytes], device_private_key: bytes, pinned_provider_keys: Iterable[bytes],
                store: BundleKeyStore, now: int, *, envelope_kid: Optional[bytes] = None) -> InstalledBundle:
    """Checks a bundle in the order of SPEC §16.5 and installs its key by the rules of step 9.
    ``envelope_kid``: in band, the kid of the envelope the bundle rides with (step 8b). Raises
    BundleError with the first failed check's reason; installs nothing then."""
    b, enc, ct = parse_bundle(bundle)                                                     # steps 1-3
    provider = next((bytes(p) for p in pinned_provider_keys if constant_time.bytes_eq(provider_key_id(p), b[1:17])),
                    None)
    if provider is None:                                                                  # step 4
        raise BundleError(BundleReason.UNKNOWN_PROVIDER)
    try:                                                                                  # step 5
        pt = setup_receiver(enc, device_private_key, BUNDLE_INFO, pk_s=provider).open(b, ct)
    except HPKEError:
        raise BundleError(BundleReason.BUNDLE_AUTHENTICATION_FAILED) from None
    opened = decode_plaintext(pt)                                                         # step 6
    if not constant_time.bytes_eq(key_id(opened.key), opened.kid):                        # step 7
        raise BundleError(BundleReason.KID_MISMATCH)
    if now > opened.expires:                                                              # step 8
        raise BundleError(BundleReason.BUNDLE_EXPIRED)
    if envelope_kid is not None and not constant_time.bytes_eq(bytes(envelope_kid), opened.kid):  # step 8b
        raise BundleError(BundleReason.ENVELOPE_MISMATCH)
    try:                                                                                  # step 9
        return _install(store, opened, now)
    except StoreLocked:
        raise BundleError(BundleReason.STORE_LOCKED) from None


def _install(store: BundleKeyStore, o: OpenedBundle, now: int) -> InstalledBundle:
    cid, epoch = o.conversation, o.epoch
    record = store.record(cid)
    if record is not None and epoch <= record.purged_through:                            # 9a
        raise BundleError(BundleReason.EPOCH_PURGED)
    has_h = record is not None and record.high_water > 0
    if record is not None and has_h and epoch > record.high_water and epoch - record.high_water > MAX_EPOCH_STEP:  # 9b
        raise BundleError(BundleReason.EPOCH_OUT_OF_RANGE)
    existing = store.key_for(cid, epoch)
    where = store.location_of(o.kid)
    if (existing is not None and not constant_time.bytes_eq(existing[0], o.key)) or (where is not None
                                                                                     and where != (cid, epoch)):
        raise BundleError(BundleReason.CONFLICTING_KEY)                                   # 9c
    purged = 0 if record is None else record.purged_through
    if existing is not None:                                                              # 9d
        not_after = existing[1]
        if o.retire_by is not None and (not_after is None or o.retire_by < not_after):
            not_after = o.retire_by
            store.set_not_after(cid, epoch, not_after)
        after = record if record is not None else ConversationRecord(epoch, o.since, purged)
        return InstalledBundle(ALREADY_INSTALLED, o, not_after, None, after)
    start = min(o.since, now)  # the key's start T, kept as its created time (9e, 9f)
    if record is None or not has_h or epoch > record.high_water:                          # 9e
        retire_at = start
        store.install(cid, epoch, o.key, o.retire_by, start)
        store.retire_earlier(cid, epoch, retire_at)
        after = ConversationRecord(epoch, o.since, purged)
        store.set_record(cid, after)
        return InstalledBundle(INSTALLED, o, o.retire_by, retire_at, after)
    not_after = min(record.high_water_since, now)                                         # 9f
    above = store.started_above(cid, epoch)  # every stored epoch above retired this one when it started (F1)
    if above is not None:
        not_after = min(not_after, above)
    if o.retire_by is not None:
        not_after = min(not_after, o.retire_by)
    store.install(cid, epoch, o.key, not_after, start)
    return InstalledBundle(INSTALLED_RETIRED, o, not_after, None, record)
