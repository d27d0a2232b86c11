/**
 * Fiat values, in US dollars (the one currency the API prices in): a
 * balance's value at a price, a total, and their display with 2 decimals
 * (SPEC section 9). No price, no value: nothing is ever shown as $0.00 for
 * want of a price.
 */
import { formatFiat, formatUnits, type Units } from '@porthole/chains/Format'

/** `amount`'s value at `price` (US dollars per whole token); none without a price. */
export function usdValue(amount: Units, price: number | undefined): number | undefined {
  if (price === undefined) return undefined
  return Number(formatUnits(amount.value, amount.decimals)) * price
}

/**
 * The value of all `holdings`: none when a holding with a balance has no
 * price (the total would be short), or when none has a price at all.
 */
export function usdTotal(
  holdings: readonly (Units & { price: number | undefined })[],
): number | undefined {
  let total = 0
  let priced = false
  for (const holding of holdings) {
    const value = usdValue(holding, holding.price)
    if (value === undefined) {
      if (holding.value !== 0n) return undefined
      continue
    }
    priced = true
    total += value
  }
  return priced ? total : undefined
}

/** A US dollar value for display: `$1,234.50`, `$0.00`, and `<$0.01` for a dust of value. */
export function formatUsd(value: number): string {
  const shown = formatFiat(value)
  return shown.startsWith('<') ? `<$${shown.slice(1)}` : `$${shown}`
}
