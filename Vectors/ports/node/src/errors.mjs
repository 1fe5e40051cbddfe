/** The reason codes of SPEC §10.2, exactly as strings. */
export const Reason = Object.freeze({
  NOT_SEALED: 'not_sealed',
  MALFORMED_ENVELOPE: 'malformed_envelope',
  UNSUPPORTED_VERSION: 'unsupported_version',
  UNKNOWN_KEY: 'unknown_key',
  STORE_LOCKED: 'store_locked',
  AUTHENTICATION_FAILED: 'authentication_failed',
  MALFORMED_CONTENT: 'malformed_content',
  CONVERSATION_MISMATCH: 'conversation_mismatch',
  STALE: 'stale',
  RETIRED_KEY: 'retired_key',
});

/** Base class of every error this package throws. */
export class PushSealError extends Error {
  constructor(message) { super(message); this.name = new.target.name; }
}

/** A content violates the v1 schema (SPEC §5.1) or is not strict JSON (§5.2). */
export class ContentError extends PushSealError {}

/** A payload could not be opened; `reason` is its reason code. The message holds no plaintext. */
export class OpenError extends PushSealError {
  constructor(reason) { super(`cannot open payload: ${reason}`); this.reason = reason; }
}

/** The provider refused to produce a payload; `code` is the Swift provider's error code. */
export class SealError extends PushSealError {
  constructor(code, detail) { super(`${code}: ${detail}`); this.code = code; this.detail = detail; }
}
