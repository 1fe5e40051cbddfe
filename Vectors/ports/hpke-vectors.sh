#!/usr/bin/env bash
# Prints the path of RFC 9180's HPKE vectors for DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
# ChaCha20Poly1305: PUSHSEAL_HPKE_VECTORS if set, else shared/vectors/hpke/ in the nearest ancestor
# directory of the checkout that has it (as the Swift tests find shared/vectors/wycheproof).
# Exit status 1, with an error, when there is none: the ports' HPKE checks then fail, never skip.
set -u
name="shared/vectors/hpke/rfc9180-x25519-sha256-chacha20poly1305.json"
if [ -n "${PUSHSEAL_HPKE_VECTORS:-}" ]; then
  [ -f "$PUSHSEAL_HPKE_VECTORS" ] && { echo "$PUSHSEAL_HPKE_VECTORS"; exit 0; }
  echo "hpke-vectors.sh: error: PUSHSEAL_HPKE_VECTORS=$PUSHSEAL_HPKE_VECTORS is not a file" >&2
  exit 1
fi
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
while :; do
  [ -f "$dir/$name" ] && { echo "$dir/$name"; exit 0; }
  [ "$dir" = / ] && break
  dir="$(dirname "$dir")"
done
echo "hpke-vectors.sh: error: $name not found beside the checkout" >&2
echo "hint: set PUSHSEAL_HPKE_VECTORS to RFC 9180's A.2 vectors in JSON (../shared/vectors/hpke/)" >&2
exit 1
