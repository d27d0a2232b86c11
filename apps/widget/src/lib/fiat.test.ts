import { describe, expect, test } from 'vitest'
import { formatUsd, usdTotal, usdValue } from './fiat.js'

const usdc = (value: bigint, price: number | undefined) => ({ value, decimals: 6, price })

describe('fiat values', () => {
  test("a balance's value at its price; none without one", () => {
    expect(usdValue({ value: 2_500_000n, decimals: 6 }, 0.9998)).toBeCloseTo(2.4995, 10)
    expect(usdValue({ value: 2_500_000n, decimals: 6 }, undefined)).toBeUndefined()
  })

  test('dollars to 2 decimals, grouped; a dust of value is <$0.01, nothing is $0.00', () => {
    expect(formatUsd(3012.50125)).toBe('$3,012.50')
    expect(formatUsd(753.125)).toBe('$753.13')
    expect(formatUsd(0.004)).toBe('<$0.01')
    expect(formatUsd(0)).toBe('$0.00')
  })

  test('a total counts every holding; a held one without a price makes no total', () => {
    expect(usdTotal([usdc(1_000_000n, 1), usdc(2_000_000n, 2)])).toBe(5)
    expect(usdTotal([usdc(1_000_000n, 1), usdc(2_000_000n, undefined)])).toBeUndefined()
    // Not held: its price does not matter.
    expect(usdTotal([usdc(1_000_000n, 1), usdc(0n, undefined)])).toBe(1)
    // Nothing priced: no total, not $0.00.
    expect(usdTotal([usdc(0n, undefined)])).toBeUndefined()
    expect(usdTotal([])).toBeUndefined()
  })
})
