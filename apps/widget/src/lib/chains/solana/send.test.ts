/**
 * Balances and sends against the real local Solana node (litesvm behind a
 * validator's JSON-RPC), reached as the widget reaches any network: through
 * the API's RPC proxy (`/v1/`), here a `fetch` stub that passes the call on.
 */
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { createSolanaNode, type SolanaNode } from '@porthole/dev-stack/solanaNode'
import { devSolanaToken } from '@porthole/dev-stack/stack'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { signAndSend, signTransaction } from '../../../../test/solanaWallet.js'
import { apiUrl } from '../../env.js'
import { SendTimeoutError } from '../../errors.js'
import { getBalance, getTokenBalances, tokenAmount } from './balances.js'
import { buildTransfer, waitForSignature } from './send.js'

const network = devSolanaToken.chainId
const sender = devSolanaKeypair(1)
const ptt = {
  kind: 'token',
  address: devSolanaToken.address,
  symbol: devSolanaToken.symbol,
  decimals: devSolanaToken.decimals,
} as const
const tokenList = {
  tokens: [
    {
      address: devSolanaToken.address,
      name: devSolanaToken.name,
      symbol: 'PTT',
      decimals: 6,
    },
    // 0 decimals: dropped (SPEC section 5).
    { address: '11111111111111111111111111111111', name: 'Whole', symbol: 'WHL', decimals: 0 },
  ],
}

let node: SolanaNode
let direct: Connection
const proxied: string[] = []

beforeAll(async () => {
  node = await createSolanaNode({ port: 0 })
  direct = new Connection(node.url, 'confirmed')
  const realFetch = globalThis.fetch
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.pathname === '/v1/' && url.origin === new URL(apiUrl).origin) {
      proxied.push(url.searchParams.get('chainId') ?? '')
      return realFetch(node.url, { method: 'POST', headers: init?.headers, body: init?.body })
    }
    if (url.pathname === '/tokens' && url.searchParams.get('chainId') === network)
      return Response.json(tokenList)
    return Response.json({ error: { code: 'not_found', message: 'No route' } }, { status: 404 })
  })
}, 60_000)

afterAll(async () => {
  vi.unstubAllGlobals()
  await node?.close()
})

describe('balances', () => {
  test('SOL in lamports with 9 decimals, through the proxy for the network', async () => {
    const balance = await getBalance(sender.publicKey.toBase58(), network)
    expect(balance).toEqual({
      value: BigInt(await direct.getBalance(sender.publicKey)),
      decimals: 9,
      symbol: 'SOL',
    })
    expect(balance.value).toBeGreaterThan(0n)
    expect(proxied).toContain(network)
  })

  test("the API's tokens for the network with the account's amounts, 0-decimal tokens dropped", async () => {
    const [token, ...others] = await getTokenBalances(sender.publicKey.toBase58(), network)
    expect(others).toEqual([])
    expect(token).toEqual({
      address: devSolanaToken.address,
      name: devSolanaToken.name,
      symbol: 'PTT',
      decimals: 6,
      value: 1_000_000n * 10n ** 6n,
    })
  })

  test('an account without a token account holds 0 of it', async () => {
    const [token] = await getTokenBalances(Keypair.generate().publicKey.toBase58(), network)
    expect(token?.value).toBe(0n)
  })
})

describe('sends', () => {
  test('SOL: the receiver gets exactly the amount, the sender pays it and the fee', async () => {
    const receiver = Keypair.generate().publicKey
    const amount = BigInt(LAMPORTS_PER_SOL) / 4n
    const before = BigInt(await direct.getBalance(sender.publicKey))
    const transaction = await buildTransfer({
      from: sender.publicKey.toBase58(),
      token: { kind: 'native', symbol: 'SOL', decimals: 9 },
      amount,
      receiver: ` ${receiver.toBase58()} `,
      caipNetworkId: network,
    })
    const signature = await signAndSend(sender, transaction, direct)
    expect(await waitForSignature(signature, network)).toBe('success')
    expect(BigInt(await direct.getBalance(receiver))).toBe(amount)
    expect(before - BigInt(await direct.getBalance(sender.publicKey))).toBe(amount + 5000n)
  })

  test("a token: creates the receiver's associated token account, which gets exactly the amount", async () => {
    const receiver = Keypair.generate().publicKey
    const mint = new PublicKey(devSolanaToken.address)
    const before = await tokenAmount(sender.publicKey, mint, network)
    const send = async (amount: bigint) => {
      const transaction = await buildTransfer({
        from: sender.publicKey.toBase58(),
        token: ptt,
        amount,
        receiver: receiver.toBase58(),
        caipNetworkId: network,
      })
      const signature = await signAndSend(sender, transaction, direct)
      expect(await waitForSignature(signature, network)).toBe('success')
    }
    await send(1_500_000n)
    const account = await direct.getAccountInfo(getAssociatedTokenAddressSync(mint, receiver))
    expect(account).not.toBeNull()
    // A second send finds the account and only transfers.
    await send(250_000n)
    expect(await tokenAmount(receiver, mint, network)).toBe(1_750_000n)
    expect(before - (await tokenAmount(sender.publicKey, mint, network))).toBe(1_750_000n)
  })

  test('a transaction that fails on chain is reverted', async () => {
    const poor = Keypair.generate()
    await direct.confirmTransaction(
      await direct.requestAirdrop(poor.publicKey, LAMPORTS_PER_SOL / 100),
    )
    // A token it holds none of: the token program refuses.
    const transaction = await buildTransfer({
      from: poor.publicKey.toBase58(),
      token: ptt,
      amount: 1n,
      receiver: sender.publicKey.toBase58(),
      caipNetworkId: network,
    })
    const signature = await direct.sendRawTransaction(signTransaction(poor, transaction), {
      skipPreflight: true,
    })
    expect(await waitForSignature(signature, network)).toBe('reverted')
  })

  test('a signature the node never saw times out with SendTimeoutError', async () => {
    const unknown = '5'.repeat(88)
    await expect(waitForSignature(unknown, network, 600)).rejects.toBeInstanceOf(SendTimeoutError)
  })
})
