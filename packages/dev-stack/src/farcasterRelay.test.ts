/**
 * The Farcaster relay stand-in over real HTTP, the Farcaster app helper's
 * real signatures, and the IdRegistry stand-in compiled with solc-js and
 * deployed to a real anvil.
 */
import { type Address, type Hex, isAddressEqual, recoverMessageAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { parseSiweMessage } from 'viem/siwe'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createAnvilClients, type LocalAnvil, startAnvil } from './anvil.ts'
import {
  compileContract,
  deployIdRegistry,
  ID_REGISTRY_SOURCE,
  idRegistryAbi,
} from './contracts.ts'
import { parseChannelUrl, signInWithFarcaster } from './farcasterApp.ts'
import { createFarcasterRelay, type FarcasterRelayStandIn } from './farcasterRelay.ts'

/** Anvil's dev accounts 0 (deployer) and 1 (a custody key). */
const OWNER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const CUSTODY_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
const CUSTODY = privateKeyToAccount(CUSTODY_KEY).address

let relay: FarcasterRelayStandIn
let anvil: LocalAnvil | undefined

beforeAll(async () => {
  relay = await createFarcasterRelay()
})
afterAll(async () => {
  await relay?.close()
  await anvil?.stop()
})

function openChannel(
  body: unknown = { siweUri: 'https://secure.example', domain: 'secure.example' },
) {
  return fetch(`${relay.url}/v1/channel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

function status(channelToken: string) {
  return fetch(`${relay.url}/v1/channel/status`, {
    headers: { authorization: `Bearer ${channelToken}` },
  })
}

describe('createFarcasterRelay', () => {
  test('opens a channel with our nonce and answers a link carrying it', async () => {
    const response = await openChannel({
      siweUri: 'https://secure.example',
      domain: 'secure.example',
      nonce: 'abcdef0123456789',
    })
    expect(response.status).toBe(201)
    const { channelToken, url, nonce } = (await response.json()) as Record<string, string>
    expect(nonce).toBe('abcdef0123456789')
    expect(url).toMatch(/^https:\/\/warpcast\.com\/~\/siwf\?/)
    expect(parseChannelUrl(url ?? '')).toEqual({
      channelToken,
      nonce,
      siweUri: 'https://secure.example',
      domain: 'secure.example',
    })
  })

  test('makes a nonce when none is given', async () => {
    const { nonce } = (await (await openChannel()).json()) as { nonce: string }
    expect(nonce).toMatch(/^[a-zA-Z0-9]{8,}$/)
  })

  test('pending (202) until the app authenticates, then completed (200) with the signed message', async () => {
    const { channelToken, url } = (await (await openChannel()).json()) as Record<string, string>
    const pending = await status(channelToken ?? '')
    expect(pending.status).toBe(202)
    expect(await pending.json()).toEqual({ state: 'pending', nonce: expect.any(String), url })

    const signed = await signInWithFarcaster({
      relayUrl: relay.url,
      url: url ?? '',
      privateKey: CUSTODY_KEY,
      fid: 1234,
      username: 'alice',
    })
    expect(signed.status).toBe(201)
    const completed = await status(channelToken ?? '')
    expect(completed.status).toBe(200)
    const body = (await completed.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      state: 'completed',
      url,
      message: signed.message,
      signature: signed.signature,
      fid: 1234,
      username: 'alice',
      custody: CUSTODY,
      verifications: [],
    })
  })

  test('a second authenticate on a completed channel is refused (409)', async () => {
    const { url } = (await (await openChannel()).json()) as { url: string }
    const options = { relayUrl: relay.url, url, privateKey: CUSTODY_KEY, fid: 1 }
    expect((await signInWithFarcaster(options)).status).toBe(201)
    expect((await signInWithFarcaster(options)).status).toBe(409)
  })

  test('an unknown channel token is 401 on status and authenticate', async () => {
    expect((await status('no-such-channel')).status).toBe(401)
    const url =
      'https://warpcast.com/~/siwf?channelToken=nope&nonce=abcdefgh1&siweUri=https%3A%2F%2Fa.example&domain=a.example'
    const signed = await signInWithFarcaster({
      relayUrl: relay.url,
      url,
      privateKey: CUSTODY_KEY,
      fid: 1,
    })
    expect(signed.status).toBe(401)
  })

  test('a channel expires after its lifetime (401)', async () => {
    const shortLived = await createFarcasterRelay({ ttlMs: 50 })
    try {
      const response = await fetch(`${shortLived.url}/v1/channel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ siweUri: 'https://a.example', domain: 'a.example' }),
      })
      const { channelToken } = (await response.json()) as { channelToken: string }
      await new Promise((resolve) => setTimeout(resolve, 80))
      const answer = await fetch(`${shortLived.url}/v1/channel/status`, {
        headers: { authorization: `Bearer ${channelToken}` },
      })
      expect(answer.status).toBe(401)
    } finally {
      await shortLived.close()
    }
  })

  test.each([
    ['no siweUri', { domain: 'a.example' }],
    ['an unknown key', { siweUri: 'https://a.example', domain: 'a.example', extra: 1 }],
    ['a short nonce', { siweUri: 'https://a.example', domain: 'a.example', nonce: 'abc' }],
  ])('refuses a channel with %s (400)', async (_, body) => {
    expect((await openChannel(body)).status).toBe(400)
  })
})

describe('signInWithFarcaster', () => {
  test('signs an EIP-4361 message for the link: chain 10, the fid resource, the custody address', async () => {
    const { url } = (await (await openChannel()).json()) as { url: string }
    const link = parseChannelUrl(url)
    const { message, signature, address } = await signInWithFarcaster({
      relayUrl: relay.url,
      url,
      privateKey: CUSTODY_KEY,
      fid: 99n,
    })
    const parsed = parseSiweMessage(message)
    expect(parsed).toMatchObject({
      domain: 'secure.example',
      uri: 'https://secure.example',
      nonce: link.nonce,
      chainId: 10,
      version: '1',
      resources: ['farcaster://fid/99'],
    })
    expect(isAddressEqual(parsed.address as Address, CUSTODY)).toBe(true)
    expect(address).toBe(CUSTODY)
    expect(isAddressEqual(await recoverMessageAddress({ message, signature }), CUSTODY)).toBe(true)
  })

  test('overrides change the message, and signWith signs with another key', async () => {
    const { url } = (await (await openChannel()).json()) as { url: string }
    const { message, signature } = await signInWithFarcaster({
      relayUrl: relay.url,
      url,
      privateKey: CUSTODY_KEY,
      signWith: OWNER_KEY,
      fid: 5,
      overrides: { domain: 'evil.example', chainId: 1 },
    })
    expect(parseSiweMessage(message)).toMatchObject({ domain: 'evil.example', chainId: 1 })
    const signer = await recoverMessageAddress({ message, signature })
    expect(isAddressEqual(signer, privateKeyToAccount(OWNER_KEY).address)).toBe(true)
  })
})

describe('deployIdRegistry', () => {
  test('the written ABI matches what solc emits', () => {
    const { abi } = compileContract(ID_REGISTRY_SOURCE, 'IdRegistry')
    const names = (entries: readonly { type: string; name?: string }[]) =>
      entries.map((entry) => `${entry.type} ${entry.name ?? ''}`).sort()
    expect(names(abi as readonly { type: string; name?: string }[])).toEqual(names(idRegistryAbi))
  })

  test('registers custody addresses, readable with custodyOf; only the owner may register', async () => {
    anvil = await startAnvil()
    const registry = await deployIdRegistry({
      rpcUrl: anvil.url,
      privateKey: OWNER_KEY,
      register: [{ fid: 1234n, custody: CUSTODY }],
    })
    const { publicClient } = createAnvilClients({ rpcUrl: anvil.url, privateKey: CUSTODY_KEY })
    const custodyOf = (fid: bigint) =>
      publicClient.readContract({
        address: registry.address,
        abi: idRegistryAbi,
        functionName: 'custodyOf',
        args: [fid],
      })
    expect(await custodyOf(1234n)).toBe(CUSTODY)
    expect(await custodyOf(1235n)).toBe('0x0000000000000000000000000000000000000000')

    const stranger = createAnvilClients({ rpcUrl: anvil.url, privateKey: CUSTODY_KEY })
    await expect(
      stranger.walletClient.writeContract({
        address: registry.address,
        abi: idRegistryAbi,
        functionName: 'register',
        args: [7n, CUSTODY],
      }),
    ).rejects.toThrow(/Unauthorized/)
  })
})
