"""The v1 construction: derivations (SPEC §4), padding (§6), envelope (§7) and strict
base64url (§8). Uses only ``cryptography``'s HKDFExpand and ChaCha20Poly1305."""

from __future__ import annotations

import os
from typing import Optional

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

__all__ = [
    "VERSION", "KEY_BYTES", "SALT_BYTES", "HEADER_BYTES", "TAG_BYTES", "MIN_ENVELOPE", "MAX_ENVELOPE",
    "MAX_WIRE_CHARS", "key_id", "message_key", "thread_id", "opaque_thread_id", "b64url_encode",
    "b64url_decode", "encoded_length", "decoded_length", "pad", "padded_length", "unpad", "seal_envelope",
    "open_envelope",
]

VERSION = 0x01
KEY_BYTES = 32
SALT_BYTES = 24
HEADER_BYTES = 41
TAG_BYTES = 16
MIN_ENVELOPE = 58
MAX_ENVELOPE = 4096
MAX_WIRE_CHARS = 5462
_ZERO_NONCE = bytes(12)
_INFO_KID = b"pushseal v1 key id"
_INFO_MK = b"pushseal v1 message key"
_INFO_TID = b"pushseal v1 thread id"


def _expand(prk: bytes, info: bytes, length: int) -> bytes:
    return HKDFExpand(algorithm=hashes.SHA256(), length=length, info=info).derive(prk)


def key_id(key: bytes) -> bytes:
    """kid = HKDF-Expand(K, "pushseal v1 key id", 16)."""
    return _expand(key, _INFO_KID, 16)


def message_key(key: bytes, salt: bytes) -> bytes:
    """mk = HKDF-Expand(K, "pushseal v1 message key" || s, 32)."""
    return _expand(key, _INFO_MK + salt, 32)


def thread_id(key: bytes) -> bytes:
    """tid = HKDF-Expand(K, "pushseal v1 thread id", 16)."""
    return _expand(key, _INFO_TID, 16)


def opaque_thread_id(key: bytes) -> str:
    """The default APNs ``thread-id``: base64url(tid), 22 characters."""
    return b64url_encode(thread_id(key))


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_B64_VALUE = {c: i for i, c in enumerate(_B64)}


def b64url_encode(data: bytes) -> str:
    """base64url without padding (RFC 4648 §5)."""
    out = []
    for i in range(0, len(data), 3):
        chunk = data[i:i + 3]
        n = int.from_bytes(chunk + bytes(3 - len(chunk)), "big")
        chars = [_B64[(n >> s) & 63] for s in (18, 12, 6, 0)]
        out.append("".join(chars[: len(chunk) + 1]))
    return "".join(out)


def b64url_decode(text: str) -> Optional[bytes]:
    """Strict base64url decoding (SPEC §8); None for anything a v1 receiver rejects."""
    if len(text) % 4 == 1:
        return None
    vals = []
    for c in text:
        v = _B64_VALUE.get(c)
        if v is None:
            return None
        vals.append(v)
    rem = len(vals) % 4
    if rem == 2 and vals[-1] & 0x0F:
        return None
    if rem == 3 and vals[-1] & 0x03:
        return None
    out = bytearray()
    for i in range(0, len(vals), 4):
        group = vals[i:i + 4]
        n = 0
        for v in group:
            n = (n << 6) | v
        n <<= 6 * (4 - len(group))
        out += n.to_bytes(3, "big")[: len(group) - 1]
    return bytes(out)


def encoded_length(byte_count: int) -> int:
    """Characters of base64url (no padding) for ``byte_count`` bytes."""
    return (byte_count * 8 + 5) // 6


def decoded_length(char_count: int) -> int:
    """The most bytes whose base64url fits in ``char_count`` characters."""
    return char_count * 6 // 8


def padded_length(content_length: int, block: int) -> int:
    """The smallest multiple of ``block`` that is at least ``content_length + 1`` (SPEC §6.2)."""
    if block < 1:
        raise ValueError("pad block must be >= 1")
    return -(-(content_length + 1) // block) * block


def pad(content: bytes, block: int) -> bytes:
    """ISO/IEC 7816-4 padding to a multiple of ``block``."""
    return pad_to(content, padded_length(len(content), block))


def pad_to(content: bytes, length: int) -> bytes:
    """``content || 0x80 || 0x00…`` of exactly ``length`` bytes (``length > len(content)``)."""
    if length <= len(content):
        raise ValueError("padded length must exceed the content length")
    return content + b"\x80" + bytes(length - len(content) - 1)


def unpad(plaintext: bytes) -> Optional[bytes]:
    """Removes padding without knowing the block size (SPEC §6.4); None when malformed."""
    i = plaintext.rfind(b"\x80")
    if i < 0 or any(plaintext[i + 1:]):
        return None
    return plaintext[:i]


def seal_envelope(key: bytes, salt: bytes, plaintext: bytes) -> bytes:
    """E = 0x01 || kid || s || ChaCha20-Poly1305(mk, zero nonce, aad = header, P)."""
    if len(key) != KEY_BYTES or len(salt) != SALT_BYTES:
        raise ValueError("key must be 32 bytes and salt 24 bytes")
    if HEADER_BYTES + len(plaintext) + TAG_BYTES > MAX_ENVELOPE or not plaintext:
        raise ValueError("the envelope must be 58 to 4096 bytes")
    header = bytes([VERSION]) + key_id(key) + salt
    return header + ChaCha20Poly1305(message_key(key, salt)).encrypt(_ZERO_NONCE, plaintext, header)


def open_envelope(key: bytes, envelope: bytes) -> Optional[bytes]:
    """The padded plaintext P, or None when authentication fails (no plaintext is released)."""
    header = envelope[:HEADER_BYTES]
    try:
        return ChaCha20Poly1305(message_key(key, envelope[17:HEADER_BYTES])).decrypt(
            _ZERO_NONCE, envelope[HEADER_BYTES:], header)
    except InvalidTag:
        return None


MAX_INT63 = (1 << 63) - 1
"""The largest integer a PushSeal field takes (epochs, times, durations: SPEC §1, §16.3)."""


def int63(name: str, value: object, minimum: int = 0) -> int:
    """``value`` checked as an integer argument ``minimum``...2^63-1: a TypeError for another type
    (``bool`` included), a ValueError out of range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not minimum <= value <= MAX_INT63:
        raise ValueError(f"{name} must be an integer {minimum}...2^63-1")
    return value


def generate_key() -> bytes:
    """A new conversation key: 32 bytes from the operating system's CSPRNG (SPEC §3.1)."""
    return os.urandom(32)
