/**
 * Sign in with Ethereum (EIP-4361) for the connected EVM wallet: the flow is
 * `host/siwx.ts`'s; this writes the message with viem and signs it with
 * wagmi. The API verifies EOA, EIP-1271 and EIP-6492 signatures.
 */
import { createSiweMessage } from 'viem/siwe'
import { getBytecode, getConnection, signMessage } from 'wagmi/actions'
import { expirationOf, type SignInOutcome, signInWith, signOutOf } from '../../host/siwx.js'
import type { EvmConfig } from './config.js'

export {
  followSession,
  type SignInOutcome,
  SiwxError,
  SiwxErrorMessage,
  SiwxMessage,
  storedSession,
} from '../../host/siwx.js'

/** Whether the connected account is a contract (a smart account), which some sites don't support. */
export async function isSmartAccount(config: EvmConfig): Promise<boolean> {
  const { address, chainId } = getConnection(config)
  if (!address) return false
  const code = await getBytecode(config, { address, chainId }).catch(() => undefined)
  return code !== undefined && code !== '0x'
}

/** Signs in with the connected EVM account (see `signInWith`). */
export async function signIn(config: EvmConfig): Promise<SignInOutcome> {
  const { address, chainId, connector } = getConnection(config)
  const supported = chainId !== undefined && config.chains.some((chain) => chain.id === chainId)
  return signInWith({
    address,
    caipNetworkId: supported ? `eip155:${chainId}` : undefined,
    hasClient: connector !== undefined,
    createMessage: ({ nonce, issuedAt, hostOrigin, siwx }) => {
      const host = new URL(hostOrigin)
      const expirationTime = expirationOf(issuedAt, siwx.expirationTime)
      return createSiweMessage({
        // The scheme too (EIP-4361's optional one): the API reads the origin from both.
        scheme: host.protocol.slice(0, -1),
        domain: host.host,
        uri: hostOrigin,
        address: address as `0x${string}`,
        chainId: chainId as number,
        nonce,
        version: '1',
        issuedAt,
        requestId: crypto.randomUUID(),
        ...(siwx.statement ? { statement: siwx.statement } : {}),
        ...(siwx.resources?.length ? { resources: siwx.resources } : {}),
        ...(expirationTime ? { expirationTime } : {}),
      })
    },
    sign: (message) => signMessage(config, { message }),
  })
}

/** Ends the session of the connected EVM account. */
export async function signOut(config: EvmConfig): Promise<void> {
  const { address, chainId } = getConnection(config)
  await signOutOf(address && chainId ? `eip155:${chainId}:${address}` : null)
}
