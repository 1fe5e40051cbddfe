"""PushSeal v1 for Python: open sealed notification payloads and seal them with the provider's
size policy. Importing the package has no side effects.

>>> from pushseal import Content, Sealer, SingleKeySource, open_payload
>>> key = bytes(32)
>>> sealed = Sealer().seal_apns(Content("c1", "m1", 1700000000, body="Hi"), key)
>>> open_payload(sealed.body, SingleKeySource(key, "c1"), clock=lambda: 1700000000).content.body
'Hi'
"""

from ._version import __version__
from .content import MAX_CONTENT_BYTES, Content, Sender
from .errors import ContentError, OpenError, PushSealError, Reason, SealCode, SealError
from .provider import (
    APNS_LIMIT, DEFAULT_PAD_BLOCK, FCM_DATA_LIMIT, MAX_PAD_BLOCK, OPAQUE, APNsOptions, FCMOptions,
    LocalizedPlaceholder, SealedPayload, Sealer, Sizes, TextPlaceholder,
)
from .receiver import (
    DEFAULT_MAX_AGE, DEFAULT_MAX_FUTURE_SKEW, KEY_LOCKED, KEY_NOT_FOUND, KeyFound, KeyLookup, KeySource, Opened,
    Receiver, SingleKeySource, open_payload, open_wire,
)
from .wire import b64url_decode, b64url_encode, generate_key, key_id, message_key, opaque_thread_id, thread_id
from .hpke import HPKEError
from .bundle import (
    NO_EXPIRY, NO_RETIRE_BY, REGISTRATION_SUITE, BundleError, BundleKeyStore, BundleReason, ConversationRecord,
    InstalledBundle, MemoryKeyStore, OpenedBundle, RegistrationError, StoreLocked, device_key, device_key_id, device_registration, open_bundle, parse_bundle, provider_key_id,
    registration_public_key, seal_bundle,
)

__all__ = [
    "__version__", "Content", "Sender", "MAX_CONTENT_BYTES", "PushSealError", "ContentError", "OpenError",
    "SealError", "SealCode", "Reason", "Sealer", "SealedPayload", "Sizes", "APNsOptions", "FCMOptions", "TextPlaceholder",
    "LocalizedPlaceholder", "OPAQUE", "DEFAULT_PAD_BLOCK", "MAX_PAD_BLOCK", "APNS_LIMIT", "FCM_DATA_LIMIT",
    "Receiver", "KeySource", "KeyLookup", "KeyFound", "KEY_NOT_FOUND", "KEY_LOCKED", "SingleKeySource", "Opened",
    "open_payload", "open_wire", "DEFAULT_MAX_AGE", "DEFAULT_MAX_FUTURE_SKEW", "generate_key", "key_id", "message_key",
    "thread_id", "opaque_thread_id", "b64url_encode", "b64url_decode",
    "HPKEError", "NO_EXPIRY", "NO_RETIRE_BY", "BundleError", "ConversationRecord", "OpenedBundle", "device_key", "BundleKeyStore", "BundleReason", "InstalledBundle",
    "MemoryKeyStore", "StoreLocked", "device_key_id", "open_bundle", "parse_bundle", "provider_key_id", "seal_bundle",
    "REGISTRATION_SUITE", "RegistrationError", "device_registration", "registration_public_key",
]
