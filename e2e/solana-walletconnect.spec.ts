/**
 * WalletConnect's solana namespace (issue 13): the widget's pairing proposes
 * the project's Solana networks beside EIP-155, both optional, and a real
 * `@reown/walletkit` wallet (in this Node process, signing with the dev Solana
 * key on the stack's Solana node) pairs over the local relay. A wallet of both
 * namespaces connects EVM as before and holds its Solana account in the same
 * session; a Solana-only wallet connects the widget's Solana side, and the
 * host's `solana_signMessage` is signed by it through the session.
 */
import { ed25519 } from '@noble/curves/ed25519'
import { expect, test } from '@playwright/test'
import * as Solana from '@porthole/chains/Solana'
import { anvilUrl, walletConnectKey } from '@porthole/dev-stack/anvil'
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import { base58 } from '@porthole/dev-stack/solanaRpcFormat'
import { relayUrl } from '@porthole/dev-stack/stack'
import {
  createTestWalletKit,
  type TestWalletKit,
  type TestWalletKitOptions,
} from '@porthole/dev-stack/walletKit'
import { hostState } from './fixtures.ts'
import { connectThroughPairing } from './walletConnectFixtures.ts'

/** The dev project's Solana networks, in its order: Solana Local first. */
const projectSolanaNetworks = [Solana.localnet, Solana.mainnet, Solana.devnet].map(
  ({ caipNetworkId }) => caipNetworkId,
)
const devSolanaAddress = devSolanaKeypair(0).publicKey.toBase58()

type ProviderWindow = Window & {
  Wallet: { provider: { request(args: { method: string; params?: unknown }): Promise<unknown> } }
}

let kit: TestWalletKit | undefined

test.afterEach(async () => {
  await kit?.close()
  kit = undefined
})

const startKit = async (namespaces?: TestWalletKitOptions['namespaces']) => {
  kit = await createTestWalletKit({
    relayUrl,
    rpcUrl: anvilUrl,
    privateKey: walletConnectKey(test.info().parallelIndex),
    namespaces,
  })
  return kit
}

test('the pairing offers the solana namespace beside eip155, and a wallet of both connects with its Solana account in the session', async ({
  page,
}) => {
  const wallet = await startKit()
  await connectThroughPairing(page, wallet)

  // What the widget proposed: nothing required (an EVM-only wallet pairs), EIP-155 and Solana optional.
  const [proposal] = wallet.proposals
  expect(proposal?.requiredNamespaces).toEqual({})
  expect(proposal?.optionalNamespaces.eip155?.chains).toContain('eip155:31337')
  expect(proposal?.optionalNamespaces.solana).toEqual({
    chains: projectSolanaNetworks,
    methods: ['solana_signMessage', 'solana_signTransaction', 'solana_signAndSendTransaction'],
    events: [],
  })

  // The session holds the dev Solana key on each of them, beside the EVM account the widget shows.
  const [session] = wallet.sessions()
  expect(session?.namespaces.solana?.accounts).toEqual(
    projectSolanaNetworks.map((network) => `${network}:${devSolanaAddress}`),
  )
  const state = await hostState(page)
  expect(state.address?.toLowerCase()).toBe(wallet.address.toLowerCase())
  expect(state.connector).toBe('WalletConnect')
})

test("a Solana-only wallet connects the widget's Solana side, and signs the host's solana_signMessage through the session", async ({
  page,
}) => {
  const wallet = await startKit(['solana'])
  await connectThroughPairing(page, wallet)
  const [session] = wallet.sessions()
  expect(Object.keys(session?.namespaces ?? {})).toEqual(['solana'])
  const state = await hostState(page)
  expect(state.caipAddress).toBe(`${Solana.localnet.caipNetworkId}:${devSolanaAddress}`)
  expect(state.open).toBe(false)

  const message = new TextEncoder().encode(`Porthole over WalletConnect ${Date.now()}`)
  const result = await page.evaluate(
    ([encoded, pubkey]) =>
      (window as unknown as ProviderWindow).Wallet.provider.request({
        method: 'solana_signMessage',
        params: { message: encoded, pubkey },
      }),
    [base58.encode(message), devSolanaAddress] as const,
  )
  const { signature } = result as { signature: string }
  expect(ed25519.verify(base58.decode(signature), message, base58.decode(devSolanaAddress))).toBe(
    true,
  )
  expect(wallet.requests.at(-1)).toMatchObject({
    method: 'solana_signMessage',
    chainId: Solana.localnet.caipNetworkId,
  })
})
