/** SECURITY.md 22: the proof of work's arithmetic (its use is in codes.test.ts). */

import { createHash } from 'node:crypto'
import { leadingZeroBits } from '@porthole/protocol/ProofOfWork'
import { describe, expect, test } from 'vitest'
import {
  powBaseDifficultyBits,
  powDifficulty,
  powHash,
  powMaxDifficultyBits,
  solveChallenge,
} from './proofOfWork.js'

describe('inv-22 proof of work', () => {
  test('counts leading zero bits', () => {
    expect(leadingZeroBits(new Uint8Array([0x80]))).toBe(0)
    expect(leadingZeroBits(new Uint8Array([0x01, 0xff]))).toBe(7)
    expect(leadingZeroBits(new Uint8Array([0x00, 0x00, 0x10]))).toBe(19)
    expect(leadingZeroBits(new Uint8Array([0, 0]))).toBe(16)
  })

  test('hashes the UTF-8 text challenge + nonce with SHA-256', () => {
    expect(powHash('abc', '42').toString('hex')).toBe(
      createHash('sha256').update('abc42').digest('hex'),
    )
  })

  test('a solved nonce has the zero bits asked for', () => {
    const challenge = { challenge: 'AAECAwQFBgcICQoLDA0ODxAR', difficulty: 12 }
    const nonce = solveChallenge(challenge)
    expect(nonce).toMatch(/^\d+$/)
    expect(leadingZeroBits(powHash(challenge.challenge, nonce))).toBeGreaterThanOrEqual(12)
  })

  test('the difficulty: 15 bits at the budget, one more per doubling of the overflow, capped', () => {
    const budget = 200
    expect(powDifficulty(0, budget)).toBe(powBaseDifficultyBits)
    expect(powDifficulty(199, budget)).toBe(15)
    expect(powDifficulty(200, budget)).toBe(16)
    expect(powDifficulty(599, budget)).toBe(16)
    expect(powDifficulty(600, budget)).toBe(17)
    expect(powDifficulty(1400, budget)).toBe(18)
    expect(powDifficulty(31 * budget, budget)).toBe(20)
    expect(powDifficulty(10 ** 9, budget)).toBe(powMaxDifficultyBits)
  })
})
