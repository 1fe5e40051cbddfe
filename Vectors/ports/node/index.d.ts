/** PushSeal v1 for Node: open sealed payloads, seal with the provider's size policy. */

/** The reason codes of SPEC §10.2. */
export type ReasonCode =
  | 'not_sealed' | 'malformed_envelope' | 'unsupported_version' | 'unknown_key' | 'store_locked'
  | 'authentication_failed' | 'malformed_content' | 'conversation_mismatch' | 'stale' | 'retired_key';
export declare const Reason: Readonly<{
  NOT_SEALED: 'not_sealed'; MALFORMED_ENVELOPE: 'malformed_envelope'; UNSUPPORTED_VERSION: 'unsupported_version';
  UNKNOWN_KEY: 'unknown_key'; STORE_LOCKED: 'store_locked'; AUTHENTICATION_FAILED: 'authentication_failed';
  MALFORMED_CONTENT: 'malformed_content'; CONVERSATION_MISMATCH: 'conversation_mismatch'; STALE: 'stale'; RETIRED_KEY: 'retired_key';
}>;

/** Provider error codes (the Swift provider's `ProviderError.code`). */
export type SealErrorCode =
  | 'invalid_content' | 'does_not_fit' | 'missing_placeholder' | 'invalid_placeholder' | 'invalid_fcm_token'
  | 'invalid_pad_block' | 'invalid_option' | 'invalid_key' | 'invalid_salt';

export declare class PushSealError extends Error {}
export declare class ContentError extends PushSealError {}
/** A payload could not be opened; the message holds no plaintext. */
export declare class OpenError extends PushSealError { readonly reason: ReasonCode; }
/** The provider refused to produce a payload. */
export declare class SealError extends PushSealError { readonly code: SealErrorCode; readonly detail: string; }

/** A notification content (SPEC §5.1); no `body` is the content-free form. */
export interface Content {
  cid: string; mid: string; ts: number; body?: string; title?: string; subtitle?: string;
  sender?: { id: string; name?: string }; thread?: string; category?: string; badge?: number; trunc?: true;
  x?: Record<string, string>;
}
export declare const MAX_CONTENT_BYTES: 4000;
/** The deterministic encoding of SPEC §5.3. */
export declare function encodeContent(content: Content): Buffer;
/** Strict decoding as a receiver does; throws ContentError. */
export declare function decodeContent(bytes: Uint8Array, options?: { maxBytes?: number }): { content: Content; unknown: string[] };
/** Throws ContentError when a field violates SPEC §5.1. */
export declare function validateContent(content: Content): void;

export declare const KEY_NOT_FOUND: 'not_found';
export declare const KEY_LOCKED: 'locked';
export type KeyLookup = { key: Uint8Array; conversation: string; retireBy?: number | bigint | null } | typeof KEY_NOT_FOUND | typeof KEY_LOCKED;
/** The receiver's key lookup; it must derive the kid from each stored key. */
export interface KeySource { lookup(kid: Buffer): KeyLookup; }
export declare class SingleKeySource implements KeySource {
  constructor(key: Uint8Array, conversation: string, options?: { locked?: boolean; retireBy?: number | bigint | null });
  locked: boolean;
  retireBy: number | bigint | null;
  lookup(kid: Buffer): KeyLookup;
}
export interface ReceiverOptions {
  maxAge?: number | bigint; maxFutureSkew?: number | bigint; clock?: () => number | bigint; seen?: (cid: string, mid: string) => boolean;
  record?: ((cid: string, mid: string, envelope: Buffer) => 'first' | 'duplicate' | 'conflict') | null;
}
export interface Opened { content: Content; contentBytes: Buffer; duplicate: boolean; conflict: boolean; requiresFetch: boolean; truncated: boolean; }
export declare const DEFAULT_MAX_AGE: 2678400;
export declare const DEFAULT_MAX_FUTURE_SKEW: 600;
export declare class Receiver {
  constructor(keySource: KeySource, options?: ReceiverOptions);
  /** Throws OpenError. */
  open(payload: Uint8Array | string): Opened;
  /** Throws OpenError. */
  openWire(wire: string): Opened;
}
export declare function openPayload(payload: Uint8Array | string, keySource: KeySource, options?: ReceiverOptions): Opened;
export declare function openWire(wire: string, keySource: KeySource, options?: ReceiverOptions): Opened;

/** APNs `thread-id` default: base64url of the key's thread id. */
export declare const OPAQUE: unique symbol;
export type Placeholder =
  | { body: string; title?: string }
  | { locKey: string; locArgs?: string[]; titleLocKey?: string; titleLocArgs?: string[] };
export interface APNsOptions {
  placeholder?: Placeholder; sound?: string; threadId?: typeof OPAQUE | string | null; category?: string;
  interruptionLevel?: 'passive' | 'active' | 'time-sensitive' | 'critical'; relevanceScore?: number;
  /** A key bundle's text carried in band as "pushseal-bundle" (SPEC §16.7), counted first. */
  keyBundle?: string;
}
/** `keyBundle`: a key bundle's text carried in band as data "pushseal-bundle" (SPEC §16.7), counted first. */
export interface FCMOptions { token: string; priority?: 'high' | 'normal'; ttl?: number; keyBundle?: string; }
export interface Sizes { content: number; padded: number; envelope: number; wire: number; payload: number; limited: number; limit: number; }
export interface SealedPayload {
  body: Buffer; text: string; path: 'complete' | 'truncated' | 'content_free'; sizes: Sizes; wire: string; content: Content;
}
export declare const DEFAULT_PAD_BLOCK: 256;
export declare const MAX_PAD_BLOCK: 4096;
export declare const APNS_LIMIT: 4096;
export declare const FCM_DATA_LIMIT: 4096;
export declare class Sealer {
  constructor(options?: { padBlock?: number });
  readonly padBlock: number;
  /** Throws SealError. `testSalt` is for test vectors only. */
  sealAPNs(content: Content, key: Uint8Array, options?: APNsOptions, seal?: { testSalt?: Uint8Array }): SealedPayload;
  /** Throws SealError. `testSalt` is for test vectors only. */
  sealFCM(content: Content, key: Uint8Array, options: FCMOptions, seal?: { testSalt?: Uint8Array }): SealedPayload;
  /** sealAPNs under the device key K_d of the conversation key and the device key id (SPEC §4.4). */
  sealAPNsForDevice(content: Content, conversationKey: Uint8Array, deviceKeyId: Uint8Array, options?: APNsOptions, seal?: { testSalt?: Uint8Array }): SealedPayload;
  /** sealFCM under the device key K_d of the conversation key and the device key id. */
  sealFCMForDevice(content: Content, conversationKey: Uint8Array, deviceKeyId: Uint8Array, options: FCMOptions, seal?: { testSalt?: Uint8Array }): SealedPayload;
}
/** The longest grapheme-cluster prefix whose JSON-escaped length fits `budget`. */
export declare function graphemePrefix(text: string, budget: number): string;

/** A new conversation key: 32 bytes from the system's CSPRNG (SPEC §3.1). */
export declare function generateKey(): Buffer;
export declare function keyId(key: Uint8Array): Buffer;
export declare function messageKey(key: Uint8Array, salt: Uint8Array): Buffer;
export declare function threadId(key: Uint8Array): Buffer;
export declare function opaqueThreadId(key: Uint8Array): string;
export declare function b64urlEncode(bytes: Uint8Array): string;
export declare function b64urlDecode(text: string): Buffer | null;
export declare const version: string;

export { HPKEError } from './hpke';

/** The key bundle reason codes, in the device's check order (SPEC §16.5, plus store_locked). */
export type BundleReasonCode =
  | 'malformed_bundle' | 'unsupported_bundle_version' | 'unknown_provider' | 'bundle_authentication_failed' | 'kid_mismatch'
  | 'bundle_expired' | 'envelope_mismatch' | 'epoch_purged' | 'epoch_out_of_range' | 'conflicting_key' | 'store_locked';
export declare const BundleReason: Readonly<{
  MALFORMED_BUNDLE: 'malformed_bundle'; UNSUPPORTED_BUNDLE_VERSION: 'unsupported_bundle_version'; UNKNOWN_PROVIDER: 'unknown_provider';
  BUNDLE_AUTHENTICATION_FAILED: 'bundle_authentication_failed'; KID_MISMATCH: 'kid_mismatch'; BUNDLE_EXPIRED: 'bundle_expired';
  ENVELOPE_MISMATCH: 'envelope_mismatch'; EPOCH_PURGED: 'epoch_purged'; EPOCH_OUT_OF_RANGE: 'epoch_out_of_range';
  CONFLICTING_KEY: 'conflicting_key'; STORE_LOCKED: 'store_locked';
}>;
/** What installing a bundle did. */
export type BundleOutcomeCode = 'installed' | 'installed_retired' | 'already_installed';
export declare const BundleOutcome: Readonly<{ INSTALLED: 'installed'; INSTALLED_RETIRED: 'installed_retired'; ALREADY_INSTALLED: 'already_installed' }>;
/** A key bundle was refused; carries no key material. */
export declare class BundleError extends PushSealError { readonly reason: BundleReasonCode; }
/** Thrown by a BundleKeyStore that cannot be used now; reported as store_locked. */
export declare class StoreLocked extends PushSealError { constructor(); }
/** The retireBy field of a bundle whose epoch was current when sealed (2^64 − 1). */
export declare const NO_RETIRE_BY: bigint;
/** The same all-ones value, kept for callers of format 1. */
export declare const NO_EXPIRY: bigint;
/** The length of every bundle (format 2), in bytes: 403. */
export declare const BUNDLE_BYTES: number;
/** The sealed fields of a bundle (SPEC §16.3); `key` is the device key K_d. */
export interface OpenedBundle {
  key: Buffer; kid: Buffer; epoch: bigint; since: bigint; retireBy: bigint | null; expires: bigint; conversation: string;
}
/** A device's per-conversation record: high-water epoch, its since time, purge tombstone. */
export interface ConversationRecord { highWater: bigint; highWaterSince: bigint; purgedThrough: bigint }
/** What openBundle needs from the device's key store; each method throws StoreLocked when it cannot be used. notAfter null: current. */
export interface BundleKeyStore {
  keyFor(conversation: string, epoch: bigint): { key: Uint8Array; notAfter: bigint | null } | null;
  locationOf(kid: Uint8Array): { conversation: string; epoch: bigint | number } | null;
  record(conversation: string): ConversationRecord | null;
  /** The earliest created time of the conversation's stored keys above epoch, or null (SPEC §16.5 step 9f). */
  startedAbove(conversation: string, epoch: bigint): bigint | null;
  /** From a bundle, created = min(since, now): the key's start. */
  install(conversation: string, epoch: bigint, key: Uint8Array, notAfter: bigint | null, created: bigint): void;
  setNotAfter(conversation: string, epoch: bigint, notAfter: bigint): void;
  retireEarlier(conversation: string, epoch: bigint, at: bigint): void;
  setRecord(conversation: string, record: ConversationRecord): void;
}
/** An in-memory bundle key store that is also a receiver key source. For tests and examples. */
export declare class MemoryKeyStore implements BundleKeyStore {
  keyFor(conversation: string, epoch: bigint | number): { key: Buffer; notAfter: bigint | null } | null;
  locationOf(kid: Uint8Array): { conversation: string; epoch: bigint } | null;
  record(conversation: string): ConversationRecord | null;
  startedAbove(conversation: string, epoch: bigint | number): bigint | null;
  /** The created time of the stored key of (conversation, epoch), or null. */
  createdAt(conversation: string, epoch: bigint | number): bigint | null;
  install(conversation: string, epoch: bigint | number, key: Uint8Array, notAfter?: bigint | number | null, created?: bigint | number): void;
  setNotAfter(conversation: string, epoch: bigint | number, notAfter: bigint | number): void;
  retireEarlier(conversation: string, epoch: bigint | number, at: bigint | number): void;
  setRecord(conversation: string, record: ConversationRecord): void;
  /** Deletes the key of (conversation, epoch) and raises the purge tombstone to epoch. */
  purge(conversation: string, epoch: bigint | number): void;
  lookup(kid: Uint8Array): { key: Buffer; conversation: string; retireBy: number | bigint | null } | typeof KEY_NOT_FOUND;
}
/** K_d = HKDF-Expand(K, "pushseal v1 device conversation key" || deviceKeyId, 32) (SPEC §4.4). */
export declare function deviceKey(conversationKey: Uint8Array, deviceKeyId: Uint8Array): Buffer;
/** HKDF-Expand(PRK = the device's X25519 public key, "pushseal v1 device key id", 16). */
export declare function deviceKeyId(devicePublicKey: Uint8Array): Buffer;
/** HKDF-Expand(PRK = the provider's X25519 public key, "pushseal v1 provider key id", 16). */
export declare function providerKeyId(providerPublicKey: Uint8Array): Buffer;
/** Steps 1-3 of the checks; throws BundleError malformed_bundle or unsupported_bundle_version. */
export declare function parseBundle(bundle: string | Uint8Array): { headerBytes: Buffer; providerKeyId: Buffer; enc: Buffer; ciphertext: Buffer };
/** The fields of a 338-byte plaintext (step 6); throws BundleError malformed_bundle. */
export declare function decodePlaintext(pt: Uint8Array): OpenedBundle;
/** The bundle text delivering the device key of `conversationKey` to the device, sealed by the provider. `testIkmE`: test vectors only. */
export declare function sealBundle(bundle: {
  conversationKey: Uint8Array; devicePublicKey: Uint8Array; conversation: string; epoch: number | bigint; since: number | bigint;
  retireBy?: number | bigint | null; expires: number | bigint; providerPrivateKey: Uint8Array; testIkmE?: Uint8Array | null;
}): string;
/** Checks a bundle in the order of SPEC §16.5 and installs its key by the rules of step 9. Throws BundleError. */
export declare function openBundle(bundle: string | Uint8Array, device: {
  devicePrivateKey: Uint8Array; pinnedProviderKeys: Iterable<Uint8Array>; store: BundleKeyStore; now: number | bigint; envelopeKid?: Uint8Array | null;
}): {
  outcome: BundleOutcomeCode; alreadyInstalled: boolean; bundle: OpenedBundle; conversation: string; notAfter: bigint | null;
  retireEarlierAt: bigint | null; record: ConversationRecord;
};
/** The registration suite string of SPEC §16.1. */
export declare const REGISTRATION_SUITE: 'pushseal-v1-x25519';
/** A device registration was refused; the message says why. */
export declare class RegistrationError extends PushSealError {}
/** The registration JSON a device sends to its backend next to its push token. */
export declare function deviceRegistration(devicePublicKey: Uint8Array): string;
/** The device public key of a registration after the backend's checks; throws RegistrationError. */
export declare function registrationPublicKey(registration: string | Uint8Array): Buffer;
