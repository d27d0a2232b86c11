/**
 * The dev stack's anvil node as the e2e tests see it: a viem public client,
 * and anvil's default dev accounts (from its well-known test mnemonic), one
 * per Playwright worker so that parallel workers never share a nonce.
 */
import { createPublicClient, defineChain, type Hex, http, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { ports } from '../../scripts/stack.ts'

export const anvilUrl = `http://127.0.0.1:${ports.anvil}`

export const localChain = defineChain({
  id: 31337,
  name: 'Porthole Local',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [anvilUrl] } },
})

export const anvil = createPublicClient({ chain: localChain, transport: http(anvilUrl) })

const mnemonic = 'test test test test test test test test test test test junk'

/** Anvil's dev account `index` (0–9 hold 10 000 ETH on a fresh node). */
export function devKey(index: number): Hex {
  const key = mnemonicToAccount(mnemonic, { addressIndex: index }).getHdKey().privateKey
  if (!key) throw new Error(`No key for dev account ${index}`)
  return toHex(key)
}

/**
 * The dev accounts the browser tests use, one per worker: 2–4 for injected
 * wallets, 5–7 for WalletConnect wallets (0 deploys the dev token at
 * start-up; 1 is left to the Vitest tests of the test parts).
 */
export const workerKey = (workerIndex: number): Hex => devKey(2 + (workerIndex % 3))
export const walletConnectKey = (workerIndex: number): Hex => devKey(5 + (workerIndex % 3))
