/**
 * A send receiver's ENS profile (SPEC section 3: the send state's receiver
 * profile name and image). Loaded on demand (`../queries.ts`), so neither
 * Connect nor the EVM views carry viem's ENS code until a receiver is typed.
 *
 * The name is the address's primary name, by ENSIP-19 reverse resolution
 * through the network's UniversalResolver, which checks it forward (the name
 * must resolve back to the address). A name that ENSIP-15 normalization
 * changes or refuses is dropped: it could imitate another. Reads go through
 * the API's RPC proxy as every read of the widget does, with CCIP-Read off:
 * offchain names need gateways the widget's CSP does not let it reach. Only
 * networks whose `@porthole/chains` entry has a UniversalResolver have names
 * (`contracts.ensUniversalResolver`). This module imports nothing of the
 * widget's own: a module the start-up bundle shares with it would be split
 * out of that bundle into a chunk of its own.
 *
 * The image is the name's `avatar` text record when it is a data: image URI.
 * The widget's CSP shows images from itself, the API and data: URIs only, so
 * an https, IPFS or NFT avatar is not shown (viem's `getEnsAvatar` would fetch
 * it from wherever it points, telling that host who looks at the address).
 */
import type { EvmNetwork } from '@porthole/chains/Networks'
import { type Address, createPublicClient, http, type PublicClient } from 'viem'
import { getEnsName, getEnsText } from 'viem/actions'
import { normalize } from 'viem/ens'

export type ReceiverProfile = { name: string | null; imageUrl: string | null }

const noProfile: ReceiverProfile = { name: null, imageUrl: null }

/** The avatars shown: raster or SVG data URIs (an SVG in an `<img>` runs no script), at most 64 KiB. */
const shownAvatar = /^data:image\/(?:png|jpeg|gif|webp|avif|svg\+xml)[;,]/
const maxAvatarLength = 64 * 1024

const clients = new Map<number, PublicClient>()

/** A client for the network at `url` (the API's proxy), made once per network. */
function clientOf(network: EvmNetwork, url: string): PublicClient {
  let client = clients.get(network.id)
  if (!client) {
    client = createPublicClient({
      chain: { ...network, rpcUrls: { default: { http: [url] } } },
      transport: http(url, { retryCount: 1 }),
      ccipRead: false,
    })
    clients.set(network.id, client)
  }
  return client
}

/** Whether ENSIP-15 normalization leaves the name as it is. */
function isNormalized(name: string): boolean {
  try {
    return normalize(name) === name
  } catch {
    return false
  }
}

/**
 * The profile of `receiver` (an EVM address, 0x optional) on `network`, read
 * at `url`: no name where the network has no UniversalResolver or the address
 * has no (valid) primary name. Throws viem's error when the lookup itself
 * failed; a failed avatar lookup only leaves the image out.
 */
export async function resolveReceiverProfile(
  receiver: string,
  network: EvmNetwork,
  url: string,
): Promise<ReceiverProfile> {
  if (!network.contracts?.ensUniversalResolver) return noProfile
  const client = clientOf(network, url)
  const address = (receiver.startsWith('0x') ? receiver : `0x${receiver}`) as Address
  const name = await getEnsName(client, { address })
  if (!name || !isNormalized(name)) return noProfile
  const avatar = await getEnsText(client, { name, key: 'avatar' }).catch(() => null)
  const imageUrl =
    avatar && avatar.length <= maxAvatarLength && shownAvatar.test(avatar) ? avatar : null
  return { name, imageUrl }
}
