/** HPKE (RFC 9180): DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305; modes base and auth, single-shot. */

export declare const KEM_ID: 0x0020;
export declare const KDF_ID: 0x0001;
export declare const AEAD_ID: 0x0003;
export declare const MODE_BASE: 0x00;
export declare const MODE_AUTH: 0x02;

import { PushSealError } from './index';
/** `invalid_key`, `zero_shared_secret` (RFC 9180 §7.1.4) or `open_failed`. */
export declare class HPKEError extends PushSealError { readonly code: 'invalid_key' | 'zero_shared_secret' | 'open_failed'; }
/** The X25519 public key of a 32-byte private key. */
export declare function publicKey(privateKey: Uint8Array): Buffer;
/** Raw X25519; throws HPKEError zero_shared_secret for the all-zero result, invalid_key for other lengths. */
export declare function x25519(privateKey: Uint8Array, publicKey: Uint8Array): Buffer;
/** RFC 9180 DeriveKeyPair for X25519. */
export declare function deriveKeyPair(ikm: Uint8Array): { privateKey: Buffer; publicKey: Buffer };
/** A new random X25519 key pair, e.g. a device key. */
export declare function generateKeyPair(): { privateKey: Buffer; publicKey: Buffer };
/** The key schedule's result (psk and psk_id empty); `seq` is 0 for single-shot use. */
export declare class HPKEContext {
  readonly mode: number; readonly sharedSecret: Buffer; readonly keyScheduleContext: Buffer; readonly secret: Buffer;
  readonly key: Buffer; readonly baseNonce: Buffer; readonly exporterSecret: Buffer;
  nonce(seq?: number | bigint): Buffer;
  seal(aad: Uint8Array, plaintext: Uint8Array, seq?: number | bigint): Buffer;
  open(aad: Uint8Array, ciphertext: Uint8Array, seq?: number | bigint): Buffer;
  export(exporterContext: Uint8Array, length: number): Buffer;
}
/** SetupBaseS / SetupAuthS. `testIkmE` is for test vectors only. */
export declare function setupSender(recipientPublicKey: Uint8Array, info: Uint8Array,
  options?: { senderPrivateKey?: Uint8Array | null; testIkmE?: Uint8Array | null }): { enc: Buffer; context: HPKEContext };
/** SetupBaseR / SetupAuthR. */
export declare function setupReceiver(enc: Uint8Array, recipientPrivateKey: Uint8Array, info: Uint8Array,
  options?: { senderPublicKey?: Uint8Array | null }): HPKEContext;
export declare function sealBase(recipientPublicKey: Uint8Array, info: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): { enc: Buffer; ciphertext: Buffer };
export declare function openBase(enc: Uint8Array, recipientPrivateKey: Uint8Array, info: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array): Buffer;
export declare function sealAuth(recipientPublicKey: Uint8Array, senderPrivateKey: Uint8Array, info: Uint8Array, aad: Uint8Array, plaintext: Uint8Array): { enc: Buffer; ciphertext: Buffer };
export declare function openAuth(enc: Uint8Array, recipientPrivateKey: Uint8Array, senderPublicKey: Uint8Array, info: Uint8Array, aad: Uint8Array, ciphertext: Uint8Array): Buffer;
