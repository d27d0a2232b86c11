/**
 * Solves the API's proof-of-work challenges in the visitor's browser
 * (SECURITY.md 22): once a project's shared mail budget is spent, a mail
 * request must carry a decimal `nonce` such that SHA-256 of the UTF-8 text
 * `challenge + nonce` starts with `difficulty` zero bits (2^difficulty hashes
 * on average; the API checks it with one). No third party is involved.
 *
 * The search runs on the frame's thread in slices of `sliceMs`, yielding to
 * the event loop between them, so the frame keeps painting and answering its
 * channel while it works. It hashes with @noble/hashes' SHA-256 over one
 * buffer whose nonce digits are written in place: several times faster than
 * one awaited WebCrypto digest per nonce (bench/pow.ts measures it).
 */

import { sha256 } from '@noble/hashes/sha2'
import { leadingZeroBits } from '@porthole/protocol/ProofOfWork'

/** The most zero bits the frame will work for (the API asks for 15 to 20). */
export const maxSolvableDifficultyBits = 26
/** How long the search runs before it yields to the event loop. */
export const defaultSliceMs = 12

/** A `RangeError` for a challenge the frame will not work on. */
export class UnsolvableChallengeError extends RangeError {
  override name = 'UnsolvableChallengeError'
}

export type SolveOptions = {
  /** Stops the search (the visitor went away); the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined
  sliceMs?: number | undefined
  /** Called after each slice with the hashes tried so far. */
  onProgress?: ((hashes: number) => void) | undefined
}

/**
 * Finds the smallest nonce (as decimal text) for `challenge` at `difficulty`
 * zero bits. Rejects for a difficulty over `maxSolvableDifficultyBits` or a
 * challenge that is not plain ASCII.
 */
export async function solveProofOfWork(
  challenge: string,
  difficulty: number,
  { signal, sliceMs = defaultSliceMs, onProgress }: SolveOptions = {},
): Promise<string> {
  if (!Number.isInteger(difficulty) || difficulty < 0 || difficulty > maxSolvableDifficultyBits)
    throw new UnsolvableChallengeError(
      `A proof of work of ${difficulty} bits is more than this page will do (at most ${maxSolvableDifficultyBits})`,
    )
  if (!/^[\x21-\x7e]{1,128}$/.test(challenge))
    throw new UnsolvableChallengeError('The proof-of-work challenge is not printable ASCII')

  // One buffer: the challenge's bytes, then the nonce's digits written in place.
  const buffer = new Uint8Array(challenge.length + maxNonceDigits)
  buffer.set(encoder.encode(challenge))
  const start = challenge.length
  let nonce = 0
  for (;;) {
    signal?.throwIfAborted()
    const until = performance.now() + sliceMs
    do {
      // Checks the clock every 256 hashes only.
      for (let batch = 0; batch < 256; batch++, nonce++) {
        const end = writeDigits(buffer, start, nonce)
        if (leadingZeroBits(sha256(buffer.subarray(0, end))) >= difficulty) return String(nonce)
      }
    } while (performance.now() < until)
    onProgress?.(nonce)
    await yieldToEventLoop()
  }
}

const encoder = new TextEncoder()
/** Digits of the largest nonce tried (far past any difficulty the frame takes). */
const maxNonceDigits = 16

/** Writes `value`'s decimal digits at `start`; returns the end. */
function writeDigits(buffer: Uint8Array, start: number, value: number): number {
  const digits = String(value)
  for (let index = 0; index < digits.length; index++)
    buffer[start + index] = digits.charCodeAt(index)
  return start + digits.length
}

/** A macrotask: lets the frame paint and handle messages (a `MessageChannel` is not clamped like `setTimeout`). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof MessageChannel === 'undefined') {
      setTimeout(resolve, 0)
      return
    }
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      resolve()
    }
    channel.port2.postMessage(undefined)
  })
}
