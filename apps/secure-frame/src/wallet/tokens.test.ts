import { encodeAbiParameters, stringToHex } from 'viem'
import { describe, expect, test } from 'vitest'
import { readTokens, toDecimals, toSymbol } from './tokens.js'

const token = '0x3333333333333333333333333333333333333333'
const answer = (symbol: unknown, decimals: unknown) => async (_: string, params: unknown[]) => {
  const [{ data }] = params as [{ data: string }]
  return data === '0x95d89b41' ? symbol : decimals
}
const uint8 = (value: number) => encodeAbiParameters([{ type: 'uint8' }], [value])

describe('inv-20 readTokens', () => {
  test('reads the symbol and decimals a token answers', async () => {
    await expect(
      readTokens(answer(encodeAbiParameters([{ type: 'string' }], ['PTT']), uint8(6)), [token]),
    ).resolves.toEqual([{ address: token, symbol: 'PTT', decimals: 6 }])
  })

  test('reads a bytes32 symbol (older tokens)', async () => {
    await expect(
      readTokens(answer(stringToHex('MKR', { size: 32 }), uint8(18)), [token]),
    ).resolves.toEqual([{ address: token, symbol: 'MKR', decimals: 18 }])
  })

  test.each<[string, unknown, unknown]>([
    ['no code (empty answers)', '0x', '0x'],
    [
      'a symbol with a bidirectional override',
      encodeAbiParameters([{ type: 'string' }], ['US\u202eDC']),
      uint8(6),
    ],
    [
      'a symbol of 40 characters',
      encodeAbiParameters([{ type: 'string' }], ['X'.repeat(40)]),
      uint8(6),
    ],
    ['decimals over 77', encodeAbiParameters([{ type: 'string' }], ['BIG']), uint8(200)],
    ['answers that are not hex', 'PTT', 6],
  ])('leaves out a token with %s: its amounts show raw', async (_, symbol, decimals) => {
    await expect(readTokens(answer(symbol, decimals), [token])).resolves.toEqual([])
  })

  test('a token whose reads fail or never answer is left out, and the rest is not held up', async () => {
    const slow = '0x4444444444444444444444444444444444444444'
    const failing = '0x5555555555555555555555555555555555555555'
    const rpc = (_: string, params: unknown[]) => {
      const [{ to, data }] = params as [{ to: string; data: string }]
      if (to === slow) return new Promise<never>(() => {})
      if (to === failing) return Promise.reject(new Error('execution reverted'))
      return Promise.resolve(
        data === '0x95d89b41' ? encodeAbiParameters([{ type: 'string' }], ['PTT']) : uint8(6),
      )
    }
    await expect(readTokens(rpc, [slow, failing, token], { timeoutMs: 50 })).resolves.toEqual([
      { address: token, symbol: 'PTT', decimals: 6 },
    ])
  })

  test('asks once per token, at most 32 tokens', async () => {
    const asked: string[] = []
    const rpc = async (_: string, params: unknown[]) => {
      asked.push((params as [{ to: string }])[0].to)
      return '0x'
    }
    const many = Array.from(
      { length: 40 },
      (_, index) => `0x${index.toString(16).padStart(40, '0')}`,
    )
    await readTokens(rpc, [...many, token, token.toUpperCase().replace('0X', '0x')])
    expect(new Set(asked).size).toBe(32)
    expect(asked).toHaveLength(64)
  })

  test('toSymbol and toDecimals refuse what is not an ABI answer', () => {
    expect(toSymbol(undefined)).toBeUndefined()
    expect(toSymbol('0x1234')).toBeUndefined()
    expect(toDecimals('0x06')).toBeUndefined()
    expect(toDecimals(uint8(6))).toBe(6)
  })
})
