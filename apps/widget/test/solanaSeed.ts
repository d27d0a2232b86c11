/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true
/** The seed of the view tests' funded Solana account (10 SOL, 1 000 PTT on the tests' node). */
export const solanaTestSeed = new Uint8Array(32).fill(42)
