// PushSeal v1 for Node 18+: open sealed payloads with a key source, and seal contents with the
// provider's size policy. Built-in modules only; importing this module has no side effects.

export { Reason, PushSealError, ContentError, OpenError, SealError } from './errors.mjs';
export { MAX_CONTENT_BYTES, encodeContent, decodeContent, validateContent } from './content.mjs';
export {
  DEFAULT_MAX_AGE, DEFAULT_MAX_FUTURE_SKEW, KEY_NOT_FOUND, KEY_LOCKED, SingleKeySource, Receiver, openPayload, openWire,
} from './receiver.mjs';
export {
  DEFAULT_PAD_BLOCK, MAX_PAD_BLOCK, APNS_LIMIT, FCM_DATA_LIMIT, OPAQUE, Sealer, graphemePrefix,
} from './provider.mjs';
export { generateKey, keyId, messageKey, threadId, opaqueThreadId, b64urlEncode, b64urlDecode } from './wire.mjs';
export { VERSION as version } from './version.mjs';
export { HPKEError } from './hpke.mjs';
export {
  NO_EXPIRY, NO_RETIRE_BY, BUNDLE_BYTES, BundleReason, BundleOutcome, BundleError, StoreLocked, MemoryKeyStore, deviceKey, deviceKeyId, providerKeyId,
  parseBundle, decodePlaintext, sealBundle, openBundle,
  REGISTRATION_SUITE, RegistrationError, deviceRegistration, registrationPublicKey,
} from './bundle.mjs';
