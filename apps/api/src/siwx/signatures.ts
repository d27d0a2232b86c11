/**
 * Checks sign-in signatures (SIWX).
 *
 * - EVM (`eip155`): the EOA signer is first recovered locally
 *   (`recoverMessageAddress`, no RPC call). Only when that is not the
 *   address is the chain asked: viem's `verifyMessage` on a public client
 *   over the chain's RPC upstream (`config.rpcUpstreams`), through the
 *   deployless ERC-6492 validator, which covers EIP-1271 contract wallets and
 *   EIP-6492 counterfactual (not yet deployed) ones; CCIP-Read is off for
 *   these calls. viem answers `false` when the node cannot be reached, so
 *   `eth_chainId` is asked alongside: a node that does not answer, or is
 *   another chain than the message's, makes the check fail as undecided
 *   (`SignatureCheckError`) rather than as an invalid signature.
 * - Solana: ed25519 over the UTF-8 message (`@noble/curves`, RFC 8032 rules).
 */
import { ed25519 } from '@noble/curves/ed25519'
import { Solana } from '@porthole/chains'
import { base58 } from '@scure/base'
import {
  createPublicClient,
  type Hex,
  http,
  isAddressEqual,
  isHex,
  type PublicClient,
  recoverMessageAddress,
} from 'viem'
import { SignatureCheckError } from '../http/errors.js'

export type VerifySignatureParameters = {
  /** CAIP-2 network id of the message. */
  chainId: string
  /** The account that claims to have signed (EVM: 0x address; Solana: base58 public key). */
  address: string
  /** The exact signed text. */
  message: string
  /** EVM: 0x hex; Solana: base58 (or 0x hex) of the 64-byte signature. */
  signature: string
}

/**
 * Resolves `true` when `signature` is `address`'s signature of `message`,
 * `false` when it is not; throws `SignatureCheckError` when that cannot be
 * told (the RPC upstream failed).
 */
export type SignatureVerifier = (parameters: VerifySignatureParameters) => Promise<boolean>

/** The networks a sign-in can be verified on: EVM chains with an RPC upstream, the known Solana networks. */
export function isVerifiableChain(rpcUpstreams: Record<string, string>, chainId: string): boolean {
  if (chainId.startsWith('eip155:')) return Object.hasOwn(rpcUpstreams, chainId)
  return solanaNetworks.has(chainId)
}

const solanaNetworks: ReadonlySet<string> = new Set(
  Solana.all.map((network) => network.caipNetworkId),
)

export function createSignatureVerifier({
  rpcUpstreams,
  timeoutMs,
}: {
  rpcUpstreams: Record<string, string>
  timeoutMs: number
}): SignatureVerifier {
  const clients = new Map<string, PublicClient>()
  const clientFor = (chainId: string): PublicClient => {
    let client = clients.get(chainId)
    if (!client) {
      const upstream = Object.hasOwn(rpcUpstreams, chainId) ? rpcUpstreams[chainId] : undefined
      if (upstream === undefined)
        throw new SignatureCheckError(`No RPC upstream for ${chainId} to check a signature on`)
      client = createPublicClient({
        transport: http(upstream, { retryCount: 0, timeout: timeoutMs }),
      })
      clients.set(chainId, client)
    }
    return client
  }

  return async ({ chainId, address, message, signature }) => {
    if (chainId.startsWith('eip155:')) {
      if (!isHex(signature) || !/^0x[0-9a-fA-F]{40}$/.test(address)) return false
      const account = address as Hex
      if (await isEoaSignature(account, message, signature)) return true
      const client = clientFor(chainId)
      const expectedChain = Number(chainId.slice('eip155:'.length))
      const [chain, valid] = await Promise.allSettled([
        client.getChainId(),
        client.verifyMessage({ address: account, message, signature }),
      ])
      // Not `cause`: viem's errors quote the request, signature included, and causes get logged.
      if (chain.status === 'rejected' || valid.status === 'rejected') {
        throw new SignatureCheckError(
          `The signature could not be checked on ${chainId}: its RPC upstream failed`,
        )
      }
      if (chain.value !== expectedChain) {
        throw new SignatureCheckError(
          `The RPC upstream configured for ${chainId} serves chain ${chain.value}`,
        )
      }
      return valid.value
    }
    if (chainId.startsWith('solana:')) return verifyEd25519(address, message, signature)
    return false
  }
}

/** Whether an EOA at `address` signed `message` (EIP-191), told without the chain. */
async function isEoaSignature(address: Hex, message: string, signature: Hex): Promise<boolean> {
  try {
    return isAddressEqual(await recoverMessageAddress({ message, signature }), address)
  } catch {
    // Not a 65-byte ECDSA signature: a contract wallet's, or garbage.
    return false
  }
}

/** The bytes of a base58 string, or `undefined` when it holds a character outside the alphabet. */
function fromBase58(text: string): Uint8Array | undefined {
  try {
    return base58.decode(text)
  } catch {
    return undefined
  }
}

function verifyEd25519(address: string, message: string, signature: string): boolean {
  const key = fromBase58(address)
  const bytes = isHex(signature) ? Buffer.from(signature.slice(2), 'hex') : fromBase58(signature)
  if (key?.length !== 32 || bytes?.length !== 64) return false
  // zip215 off: the strict RFC 8032 checks (canonical encodings), as Node's crypto did.
  return ed25519.verify(bytes, new TextEncoder().encode(message), key, { zip215: false })
}
