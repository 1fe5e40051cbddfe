"""Errors and the reason-code vocabulary (SPEC §10.3)."""

from __future__ import annotations

from enum import Enum

__all__ = ["Reason", "PushSealError", "OpenError", "SealCode", "SealError", "ContentError"]


class CodeEnum(str, Enum):
    """A vocabulary of reason or error codes: each member is its code string, and prints as it."""

    def __str__(self) -> str:
        return str.__str__(self)  # the code string itself (a member is the str of its value)


class Reason(CodeEnum):
    """Why a payload fell back: exactly the reason codes of SPEC §10.2, as strings."""

    NOT_SEALED = "not_sealed"
    MALFORMED_ENVELOPE = "malformed_envelope"
    UNSUPPORTED_VERSION = "unsupported_version"
    UNKNOWN_KEY = "unknown_key"
    STORE_LOCKED = "store_locked"
    AUTHENTICATION_FAILED = "authentication_failed"
    MALFORMED_CONTENT = "malformed_content"
    CONVERSATION_MISMATCH = "conversation_mismatch"
    STALE = "stale"
    RETIRED_KEY = "retired_key"


class PushSealError(Exception):
    """Base class of every error this package raises."""


class ContentError(PushSealError, ValueError):
    """A content violates the v1 schema (SPEC §5.1) or is not strict JSON (§5.2)."""


class OpenError(PushSealError):
    """A payload could not be opened; ``reason`` is its SPEC §10.2 reason code.

    The message never contains any part of the plaintext."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(f"cannot open payload: {reason.value}")
        self.reason = reason


class SealCode(CodeEnum):
    """Why the provider refused to produce a payload: the Swift provider's error codes, as strings
    (a ``SealCode`` compares equal to its string)."""

    INVALID_CONTENT = "invalid_content"
    DOES_NOT_FIT = "does_not_fit"
    MISSING_PLACEHOLDER = "missing_placeholder"
    INVALID_PLACEHOLDER = "invalid_placeholder"
    INVALID_FCM_TOKEN = "invalid_fcm_token"
    INVALID_PAD_BLOCK = "invalid_pad_block"
    INVALID_OPTION = "invalid_option"
    INVALID_KEY = "invalid_key"
    INVALID_SALT = "invalid_salt"


class SealError(PushSealError):
    """The provider refused to produce a payload; ``code`` is its ``SealCode``."""

    def __init__(self, code: "SealCode | str", detail: str) -> None:
        self.code = SealCode(code)  # a ValueError for a code that is not one of SealCode's
        super().__init__(f"{self.code.value}: {detail}")
        self.detail = detail
