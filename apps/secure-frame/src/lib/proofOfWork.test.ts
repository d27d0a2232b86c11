/**
 * SECURITY.md 22: the frame solves the API's proof of work in the browser,
 * without freezing (it yields between slices), and gives up when told to.
 */

import { createHash } from 'node:crypto'
import { leadingZeroBits } from '@porthole/protocol/ProofOfWork'
import { describe, expect, test } from 'vitest'
import {
  maxSolvableDifficultyBits,
  solveProofOfWork,
  UnsolvableChallengeError,
} from './proofOfWork.js'

/** The API's check: SHA-256 of the UTF-8 text challenge + nonce (apps/api/src/proofOfWork.ts). */
const zeroBits = (challenge: string, nonce: string) =>
  leadingZeroBits(createHash('sha256').update(`${challenge}${nonce}`).digest())

describe('inv-22 solveProofOfWork', () => {
  test('finds the smallest nonce whose hash has the zero bits asked for', async () => {
    const challenge = 'q8Yk3mV0aBcDeFgHiJkLmNoP'
    const nonce = await solveProofOfWork(challenge, 10)
    expect(zeroBits(challenge, nonce)).toBeGreaterThanOrEqual(10)
    for (let smaller = 0; smaller < Number(nonce); smaller++)
      expect(zeroBits(challenge, String(smaller))).toBeLessThan(10)
  })

  test('yields to the event loop between slices, so the frame stays responsive', async () => {
    let ticks = 0
    const timer = setInterval(() => {
      ticks += 1
    }, 1)
    const progress: number[] = []
    try {
      const nonce = await solveProofOfWork('responsive-challenge-0001', 15, {
        sliceMs: 2,
        onProgress: (hashes) => progress.push(hashes),
      })
      expect(zeroBits('responsive-challenge-0001', nonce)).toBeGreaterThanOrEqual(15)
    } finally {
      clearInterval(timer)
    }
    expect(progress.length).toBeGreaterThan(1)
    expect(ticks).toBeGreaterThan(0)
  })

  test('stops when the signal aborts', async () => {
    const controller = new AbortController()
    const solving = solveProofOfWork('never-solved-at-26-bits-x', 26, {
      signal: controller.signal,
      sliceMs: 2,
    })
    setTimeout(() => controller.abort(new Error('the visitor left')), 20)
    await expect(solving).rejects.toThrow('the visitor left')
  })

  test('refuses a difficulty past its cap and a challenge that is not printable ASCII', async () => {
    await expect(
      solveProofOfWork('q8Yk3mV0aBcDeFgHiJkLmNoP', maxSolvableDifficultyBits + 1),
    ).rejects.toThrow(UnsolvableChallengeError)
    await expect(solveProofOfWork('ünïcode challenge', 4)).rejects.toThrow(/printable ASCII/)
  })
})
