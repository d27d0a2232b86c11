/** The network's prices in a view's component test. */
import { expect } from 'vitest'
import { queryClient } from '../src/lib/data/queryClient.js'

/**
 * Once `caipNetworkId`'s prices have loaded (or failed) and the view has
 * painted them: then a fiat value missing is missing for good.
 */
export async function pricesSettled(caipNetworkId = 'eip155:1') {
  await expect
    .poll(() => queryClient.getQueryState(['prices', caipNetworkId])?.status)
    .not.toBe('pending')
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
}
/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true
