/**
 * The proof of work the API asks for once a mail bucket or budget is spent
 * (SECURITY.md 22): SHA-256 of the UTF-8 text `challenge + nonce` must start
 * with `difficulty` zero bits. The API checks it (apps/api/src/auth/email/proofOfWork.ts)
 * and the secure frame solves it (apps/secure-frame/src/lib/proofOfWork.ts).
 */

/** The leading zero bits of `bytes`. */
export function leadingZeroBits(bytes: Uint8Array): number {
  let bits = 0
  for (const byte of bytes) {
    if (byte === 0) {
      bits += 8
      continue
    }
    return bits + Math.clz32(byte) - 24
  }
  return bits
}
