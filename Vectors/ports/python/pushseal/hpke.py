"""HPKE (RFC 9180) for one suite: DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305;
modes base (0x00) and auth (0x02), single-shot. Built from ``cryptography``'s X25519, HMAC-SHA256
and ChaCha20Poly1305 only. The key bundles (``pushseal.bundle``) use the auth mode.

>>> from pushseal.hpke import derive_key_pair, open_auth, seal_auth
>>> sk_r, pk_r = derive_key_pair(bytes(32))
>>> sk_s, pk_s = derive_key_pair(bytes([1]) * 32)
>>> enc, ct = seal_auth(pk_r, sk_s, b"info", b"aad", b"hello")
>>> open_auth(enc, sk_r, pk_s, b"info", b"aad", ct)
b'hello'
"""

from __future__ import annotations

import os
from typing import Optional, Tuple

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .errors import PushSealError

__all__ = [
    "KEM_ID", "KDF_ID", "AEAD_ID", "MODE_BASE", "MODE_AUTH", "HPKEError", "HPKEContext", "derive_key_pair",
    "generate_key_pair", "public_key", "x25519", "setup_sender", "setup_receiver", "seal_base", "open_base", "seal_auth", "open_auth",
]

KEM_ID = 0x0020
KDF_ID = 0x0001
AEAD_ID = 0x0003
MODE_BASE = 0x00
MODE_AUTH = 0x02
_N_SECRET = 32  # Nsecret of DHKEM(X25519, HKDF-SHA256)
_N_K = 32  # Nk of ChaCha20Poly1305
_N_N = 12  # Nn
_KEM_SUITE = b"KEM" + KEM_ID.to_bytes(2, "big")
_HPKE_SUITE = b"HPKE" + KEM_ID.to_bytes(2, "big") + KDF_ID.to_bytes(2, "big") + AEAD_ID.to_bytes(2, "big")


class HPKEError(PushSealError):
    """An HPKE operation failed. ``code`` is ``invalid_key`` (not a 32-byte X25519 key),
    ``zero_shared_secret`` (the X25519 result is all zero: a small-order public key, refused as
    RFC 9180 §7.1.4 requires) or ``open_failed`` (the ciphertext does not authenticate)."""

    def __init__(self, code: str) -> None:
        super().__init__(f"hpke: {code}")
        self.code = code


def _extract(salt: bytes, ikm: bytes) -> bytes:
    h = hmac.HMAC(salt or bytes(32), hashes.SHA256())
    h.update(ikm)
    return h.finalize()


def _labeled_extract(suite: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return _extract(salt, b"HPKE-v1" + suite + label + ikm)


def _labeled_expand(suite: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    labeled = length.to_bytes(2, "big") + b"HPKE-v1" + suite + label + info
    return HKDFExpand(algorithm=hashes.SHA256(), length=length, info=labeled).derive(prk)


def _check_key(key: bytes) -> bytes:
    if not isinstance(key, (bytes, bytearray)) or len(key) != 32:
        raise HPKEError("invalid_key")
    return bytes(key)


def public_key(private_key: bytes) -> bytes:
    """The X25519 public key (32 bytes) of a 32-byte private key."""
    sk = X25519PrivateKey.from_private_bytes(_check_key(private_key))
    return sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def derive_key_pair(ikm: bytes) -> Tuple[bytes, bytes]:
    """RFC 9180 DeriveKeyPair for X25519: (private key, public key) from input keying material
    (at least 32 bytes of entropy)."""
    dkp_prk = _labeled_extract(_KEM_SUITE, b"", b"dkp_prk", bytes(ikm))
    sk = _labeled_expand(_KEM_SUITE, dkp_prk, b"sk", b"", 32)
    return sk, public_key(sk)


def generate_key_pair() -> Tuple[bytes, bytes]:
    """A new random X25519 key pair (private key, public key), e.g. a device key."""
    return derive_key_pair(os.urandom(32))


def x25519(private_key: bytes, public: bytes) -> bytes:
    """Raw X25519 (RFC 7748) of two 32-byte keys; raises HPKEError("zero_shared_secret") for the
    all-zero result (RFC 9180 §7.1.4) and HPKEError("invalid_key") for other lengths."""
    sk = X25519PrivateKey.from_private_bytes(_check_key(private_key))
    pk = X25519PublicKey.from_public_bytes(_check_key(public))
    try:
        z = sk.exchange(pk)
    except ValueError:  # OpenSSL refuses the all-zero result itself
        raise HPKEError("zero_shared_secret") from None
    if z == bytes(32):
        raise HPKEError("zero_shared_secret")
    return z


def _extract_and_expand(dh: bytes, kem_context: bytes) -> bytes:
    eae_prk = _labeled_extract(_KEM_SUITE, b"", b"eae_prk", dh)
    return _labeled_expand(_KEM_SUITE, eae_prk, b"shared_secret", kem_context, _N_SECRET)


def _encap(pk_r: bytes, sk_s: Optional[bytes], ikm_e: Optional[bytes]) -> Tuple[bytes, bytes]:
    sk_e, pk_e = derive_key_pair(ikm_e if ikm_e is not None else os.urandom(32))
    dh = x25519(sk_e, pk_r)
    kem_context = pk_e + _check_key(pk_r)
    if sk_s is not None:
        dh += x25519(sk_s, pk_r)
        kem_context += public_key(sk_s)
    return _extract_and_expand(dh, kem_context), pk_e


def _decap(enc: bytes, sk_r: bytes, pk_s: Optional[bytes]) -> bytes:
    dh = x25519(sk_r, enc)
    kem_context = bytes(enc) + public_key(sk_r)
    if pk_s is not None:
        dh += x25519(sk_r, pk_s)
        kem_context += bytes(pk_s)
    return _extract_and_expand(dh, kem_context)


class HPKEContext:
    """The key schedule's result (RFC 9180 §5.1) for mode base or auth (psk and psk_id empty).
    ``seal``/``open`` take the sequence number explicitly; single-shot use is sequence 0."""

    def __init__(self, mode: int, shared_secret: bytes, info: bytes) -> None:
        psk_id_hash = _labeled_extract(_HPKE_SUITE, b"", b"psk_id_hash", b"")
        info_hash = _labeled_extract(_HPKE_SUITE, b"", b"info_hash", bytes(info))
        self.mode = mode
        self.shared_secret = shared_secret
        self.key_schedule_context = bytes([mode]) + psk_id_hash + info_hash
        self.secret = _labeled_extract(_HPKE_SUITE, shared_secret, b"secret", b"")
        self.key = _labeled_expand(_HPKE_SUITE, self.secret, b"key", self.key_schedule_context, _N_K)
        self.base_nonce = _labeled_expand(_HPKE_SUITE, self.secret, b"base_nonce", self.key_schedule_context, _N_N)
        self.exporter_secret = _labeled_expand(_HPKE_SUITE, self.secret, b"exp", self.key_schedule_context, 32)

    def nonce(self, seq: int) -> bytes:
        """base_nonce XOR I2OSP(seq, Nn)."""
        if not 0 <= seq < 1 << 64:
            raise ValueError("sequence number out of range")
        return bytes(a ^ b for a, b in zip(self.base_nonce, seq.to_bytes(_N_N, "big")))

    def seal(self, aad: bytes, plaintext: bytes, seq: int = 0) -> bytes:
        """ChaCha20Poly1305 under (key, nonce(seq)): ciphertext || tag."""
        return ChaCha20Poly1305(self.key).encrypt(self.nonce(seq), bytes(plaintext), bytes(aad))

    def open(self, aad: bytes, ciphertext: bytes, seq: int = 0) -> bytes:
        """The plaintext; raises HPKEError("open_failed") if the tag does not verify."""
        try:
            return ChaCha20Poly1305(self.key).decrypt(self.nonce(seq), bytes(ciphertext), bytes(aad))
        except InvalidTag:
            raise HPKEError("open_failed") from None

    def export(self, exporter_context: bytes, length: int) -> bytes:
        """RFC 9180 §5.3 secret export."""
        return _labeled_expand(_HPKE_SUITE, self.exporter_secret, b"sec", bytes(exporter_context), length)


def setup_sender(pk_r: bytes, info: bytes, sk_s: Optional[bytes] = None,
                 test_ikm_e: Optional[bytes] = None) -> Tuple[bytes, HPKEContext]:
    """SetupBaseS (``sk_s`` None) or SetupAuthS: (enc, context). The ephemeral key is random;
    ``test_ikm_e`` derives it with DeriveKeyPair, for test vectors only."""
    shared_secret, enc = _encap(_check_key(pk_r), sk_s, test_ikm_e)
    return enc, HPKEContext(MODE_BASE if sk_s is None else MODE_AUTH, shared_secret, info)


def setup_receiver(enc: bytes, sk_r: bytes, info: bytes, pk_s: Optional[bytes] = None) -> HPKEContext:
    """SetupBaseR (``pk_s`` None) or SetupAuthR."""
    shared_secret = _decap(_check_key(enc), _check_key(sk_r), None if pk_s is None else _check_key(pk_s))
    return HPKEContext(MODE_BASE if pk_s is None else MODE_AUTH, shared_secret, info)


def seal_base(pk_r: bytes, info: bytes, aad: bytes, plaintext: bytes) -> Tuple[bytes, bytes]:
    """Single-shot base-mode seal: (enc, ciphertext || tag)."""
    enc, ctx = setup_sender(pk_r, info)
    return enc, ctx.seal(aad, plaintext)


def open_base(enc: bytes, sk_r: bytes, info: bytes, aad: bytes, ciphertext: bytes) -> bytes:
    """Single-shot base-mode open."""
    return setup_receiver(enc, sk_r, info).open(aad, ciphertext)


def seal_auth(pk_r: bytes, sk_s: bytes, info: bytes, aad: bytes, plaintext: bytes) -> Tuple[bytes, bytes]:
    """Single-shot auth-mode seal by the sender key ``sk_s``: (enc, ciphertext || tag)."""
    enc, ctx = setup_sender(pk_r, info, sk_s=_check_key(sk_s))
    return enc, ctx.seal(aad, plaintext)


def open_auth(enc: bytes, sk_r: bytes, pk_s: bytes, info: bytes, aad: bytes, ciphertext: bytes) -> bytes:
    """Single-shot auth-mode open: succeeds only for a ciphertext sealed with the private key of ``pk_s``."""
    return setup_receiver(enc, sk_r, info, pk_s=pk_s).open(aad, ciphertext)
