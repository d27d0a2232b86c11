/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

/**
 * The API's JSON-RPC proxy (`POST /v1/`) for a Solana network, in a view
 * test: each call goes to the tests' real Solana node
 * (`solanaNode.setup.ts`), through the test runner (`solanaRpc`, the page
 * cannot call the node itself).
 */
import { Keypair } from '@solana/web3.js'
import { inject } from 'vitest'
import { commands } from 'vitest/browser'
import type { Route } from './api.js'
import { solanaTestSeed } from './solanaSeed.js'

declare module 'vitest/browser' {
  interface BrowserCommands {
    solanaRpc(url: string, body: string): Promise<string>
  }
}

export const solanaRpcRoute =
  (): Route =>
  async ({ body }) =>
    JSON.parse(await commands.solanaRpc(inject('solanaRpcUrl'), JSON.stringify(body)))

/** A JSON-RPC call to the tests' node, as a test checks the chain itself. */
export async function solanaRpc(method: string, params: unknown[]): Promise<unknown> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
  const answer = JSON.parse(await commands.solanaRpc(inject('solanaRpcUrl'), body)) as {
    result?: unknown
    error?: { message: string }
  }
  if (answer.error) throw new Error(answer.error.message)
  return answer.result
}

/** The view tests' funded account: 10 SOL and 1 000 PTT at the start of the run. */
export const fundedKeypair = Keypair.fromSeed(solanaTestSeed)
