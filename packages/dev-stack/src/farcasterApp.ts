/**
 * The person's Farcaster app, for tests: what Warpcast does once a Sign In
 * With Farcaster link is opened or scanned. It reads the channel from the
 * link, writes the EIP-4361 (SIWE) message AuthKit expects (chain id 10, the
 * fid as a `farcaster://fid/<fid>` resource), signs it with the fid's custody
 * key, and posts it to the relay's `POST /v1/channel/authenticate`.
 *
 * `overrides` change the message (another domain, nonce, chain, fid
 * resource, an expiry in the past…) for tests of what a verifier refuses.
 */
import { type Address, type Hex, isAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'

/** The chain id every Farcaster sign-in message names (Optimism). */
export const farcasterChainId = 10

/** What a relay link carries. */
export type FarcasterChannelLink = {
  channelToken: string
  nonce: string
  siweUri: string
  domain: string
  notBefore?: string
  expirationTime?: string
  requestId?: string
}

/** Reads the channel from a relay link (`…?channelToken=…&nonce=…&siweUri=…&domain=…`). */
export function parseChannelUrl(url: string): FarcasterChannelLink {
  const params = new URL(url).searchParams
  const required = (name: string) => {
    const value = params.get(name)
    if (!value) throw new Error(`The Farcaster link has no ${name}`)
    return value
  }
  const optional = (name: 'notBefore' | 'expirationTime' | 'requestId') => {
    const value = params.get(name)
    return value ? { [name]: value } : {}
  }
  return {
    channelToken: required('channelToken'),
    nonce: required('nonce'),
    siweUri: required('siweUri'),
    domain: required('domain'),
    ...optional('notBefore'),
    ...optional('expirationTime'),
    ...optional('requestId'),
  }
}

export type FarcasterMessageOverrides = {
  domain?: string
  uri?: string
  nonce?: string
  chainId?: number
  /** Replaces the `farcaster://fid/<fid>` resource list. */
  resources?: string[]
  /** The address the message names; by default the signer's. */
  address?: Address
  issuedAt?: Date
  notBefore?: Date
  expirationTime?: Date
}

export type CreateFarcasterMessageParameters = {
  link: FarcasterChannelLink
  address: Address
  fid: number | bigint
  overrides?: FarcasterMessageOverrides | undefined
}

/** The SIWE message a Farcaster app signs for `link`, as AuthKit builds it. */
export function createFarcasterMessage({
  link,
  address,
  fid,
  overrides = {},
}: CreateFarcasterMessageParameters): string {
  const notBefore = overrides.notBefore ?? (link.notBefore ? new Date(link.notBefore) : undefined)
  const expirationTime =
    overrides.expirationTime ?? (link.expirationTime ? new Date(link.expirationTime) : undefined)
  return createSiweMessage({
    domain: overrides.domain ?? link.domain,
    address: overrides.address ?? address,
    statement: 'Farcaster Auth',
    uri: overrides.uri ?? link.siweUri,
    version: '1',
    chainId: overrides.chainId ?? farcasterChainId,
    nonce: overrides.nonce ?? link.nonce,
    issuedAt: overrides.issuedAt ?? new Date(),
    resources: overrides.resources ?? [`farcaster://fid/${fid}`],
    ...(notBefore === undefined ? {} : { notBefore }),
    ...(expirationTime === undefined ? {} : { expirationTime }),
    ...(link.requestId === undefined ? {} : { requestId: link.requestId }),
  })
}

export type SignInWithFarcasterOptions = {
  /** The relay's base URL (`FARCASTER_RELAY_URL`), e.g. the stand-in's `url`. */
  relayUrl: string
  /** The channel's link, as `POST /v1/channel` (or the API's farcaster/start) answered it. */
  url: string
  /** The fid's custody key: the account the IdRegistry names for `fid`. */
  privateKey: Hex
  fid: number | bigint
  username?: string
  displayName?: string
  bio?: string
  pfpUrl?: string
  overrides?: FarcasterMessageOverrides
  /** Signs with this key instead (a signer that is not the custody address). */
  signWith?: Hex
}

export type SignInWithFarcasterResult = {
  message: string
  signature: Hex
  /** The address the message names. */
  address: Address
  /** The relay's answer to authenticate (201 when the channel took it). */
  status: number
  body: unknown
}

/** Signs in on the channel of `url` as the Farcaster app would. */
export async function signInWithFarcaster(
  options: SignInWithFarcasterOptions,
): Promise<SignInWithFarcasterResult> {
  const { relayUrl, url, privateKey, fid, overrides } = options
  const link = parseChannelUrl(url)
  const custody = privateKeyToAccount(privateKey)
  const signer = options.signWith === undefined ? custody : privateKeyToAccount(options.signWith)
  const message = createFarcasterMessage({ link, address: custody.address, fid, overrides })
  const signature = await signer.signMessage({ message })
  const address = overrides?.address ?? custody.address
  if (!isAddress(address)) throw new Error('the message address is not an address')
  const response = await fetch(`${relayUrl.replace(/\/+$/, '')}/v1/channel/authenticate`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${link.channelToken}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      message,
      signature,
      fid: Number(fid),
      username: options.username ?? `fid${fid}`,
      bio: options.bio ?? '',
      displayName: options.displayName ?? `Farcaster ${fid}`,
      pfpUrl: options.pfpUrl ?? 'https://example.com/pfp.png',
    }),
  })
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = text
  }
  return { message, signature, address, status: response.status, body }
}
