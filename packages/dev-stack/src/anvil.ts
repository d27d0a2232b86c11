/**
 * Anvil nodes on this machine: the dev stack's node (port 8545, which
 * `npm start` runs) as the e2e tests and the bench see it, and private nodes
 * for the Vitest tests.
 *
 * `startAnvil()` starts a private node for a Vitest test file, on a free port
 * (not the dev stack's 8545), and resolves once it answers eth_chainId; when
 * it exits or stays silent instead, the error carries what anvil wrote to
 * stderr. `createAnvilClients()` gives the viem clients of a key on any anvil
 * node, the dev stack's included.
 */
import { spawn } from 'node:child_process'
import { type AddressInfo, createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  numberToHex,
  toHex,
} from 'viem'
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts'
import { devMnemonic, ports } from './stack.ts'

export type StartAnvilOptions = {
  /** Defaults to 31337, anvil's own. */
  chainId?: number
}

export type LocalAnvil = {
  /** The node's JSON-RPC URL. */
  readonly url: string
  readonly port: number
  /** Kills the node; resolves once it has exited. */
  stop(): Promise<void>
  /** What anvil has written to stderr so far. */
  log(): string
}

const anvilBin = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'anvil')
const startTimeout = 30_000

export async function startAnvil(options: StartAnvilOptions = {}): Promise<LocalAnvil> {
  const { chainId = 31337 } = options
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(
    anvilBin,
    ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--silent'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let log = ''
  child.stderr.on('data', (chunk: Buffer) => {
    log += chunk.toString()
  })
  let spawnError: Error | undefined
  child.once('error', (error) => {
    spawnError = error
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const stop = async () => {
    if (spawnError) return
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }

  const answers = () =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    })
      .then(
        async (response) =>
          ((await response.json()) as { result?: unknown }).result === numberToHex(chainId),
      )
      .catch(() => false)

  const deadline = Date.now() + startTimeout
  for (;;) {
    if (await answers()) return { url, port, stop, log: () => log }
    if (spawnError) throw new Error(`anvil did not start: ${spawnError.message}`)
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`anvil exited with ${child.exitCode ?? child.signalCode}: ${log}`)
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`anvil did not answer eth_chainId within ${startTimeout / 1000} s: ${log}`)
    }
    await sleep(100)
  }
}

/** A port the OS says is free now (anvil binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

export type AnvilClientsOptions = {
  /** The node's JSON-RPC URL. */
  rpcUrl: string
  /** The key the wallet client signs with. */
  privateKey: Hex
  /** The node's chain id; defaults to 31337, anvil's own. */
  chainId?: number
}

/** A local account for `privateKey` and its public and wallet clients on the node at `rpcUrl`. */
export function createAnvilClients(options: AnvilClientsOptions) {
  const { rpcUrl, privateKey, chainId = 31337 } = options
  const account = privateKeyToAccount(privateKey)
  const chain = defineChain({
    id: chainId,
    name: 'Anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const transport = http(rpcUrl, { retryCount: 0 })
  return {
    account,
    publicClient: createPublicClient({ chain, transport }),
    walletClient: createWalletClient({ account, chain, transport }),
  }
}

export const anvilUrl = `http://127.0.0.1:${ports.anvil}`

export const localChain = defineChain({
  id: 31337,
  name: 'Porthole Local',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [anvilUrl] } },
})

export const anvil = createPublicClient({ chain: localChain, transport: http(anvilUrl) })

/** Anvil's dev account `index` (0–9 hold 10 000 ETH on a fresh node). */
export function devKey(index: number): Hex {
  const key = mnemonicToAccount(devMnemonic, { addressIndex: index }).getHdKey().privateKey
  if (!key) throw new Error(`No key for dev account ${index}`)
  return toHex(key)
}

/**
 * The dev accounts the browser tests use, one per running worker: 2–4 for
 * injected wallets, 5–7 for WalletConnect wallets (0 deploys the dev token at
 * start-up; 1 is left to the Vitest tests of the test parts). Pass Playwright's
 * `parallelIndex`, not its `workerIndex`: a worker that replaces a failed one
 * keeps the slot's `parallelIndex` but gets a new `workerIndex`, which would
 * share an account (nonces, balances) with a worker still running.
 */
export const workerKey = (parallelIndex: number): Hex => devKey(2 + (parallelIndex % 3))
export const walletConnectKey = (parallelIndex: number): Hex => devKey(5 + (parallelIndex % 3))
