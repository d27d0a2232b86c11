/**
 * The embedded (email and social) wallet's Solana account as a
 * `SolanaWallet`: the secure frame holds the key; `getUser` with a Solana
 * network gives its address, and each signature is an `rpcRequest`
 * (`secure/approval.ts`: ApproveTransaction, the frame's Approve).
 */
import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import { base58, base64 } from '@scure/base'
import { embeddedConnectorId, requestEmbedded } from '../../secure/approval.js'
import { waitForSecureChannel } from '../../secure/frame.js'
import { clearEmailLogin } from '../../secure/login.js'
import { noteEmbeddedSession } from '../../secure/session.js'
import type { SolanaWallet } from './wallet.js'

const malformed = (method: string) =>
  new RpcError(
    ErrorCode.internal,
    `The embedded wallet answered ${method} with a malformed result.`,
  )

/** A string field of the frame's answer. */
function field(result: unknown, key: string, method: string): string {
  const value = (result as Record<string, unknown> | null)?.[key]
  if (typeof value !== 'string') throw malformed(method)
  return value
}

/** `network()`: the project's network the account starts on (the first Solana one). */
export function embeddedWallet(network: () => string | undefined): SolanaWallet {
  const request = async (
    method: string,
    params: Record<string, unknown>,
    caipNetworkId: string,
    key: string,
  ) => field(await requestEmbedded({ method, params, chainId: caipNetworkId }), key, method)

  return {
    id: embeddedConnectorId,
    name: 'Email wallet',
    // Any of the project's networks.
    networks: () => [],

    async connect(silent) {
      const channel = await waitForSecureChannel()
      if (silent && !(await channel.request('isConnected', undefined)).isConnected) {
        noteEmbeddedSession(false)
        return null
      }
      const chainId = network()
      const user = await channel.request('getUser', chainId ? { chainId } : {})
      noteEmbeddedSession(true)
      return user.address
    },

    async disconnect() {
      clearEmailLogin()
      noteEmbeddedSession(false)
      const channel = await waitForSecureChannel().catch(() => null)
      await channel?.request('signOut', undefined).catch(() => undefined)
    },

    async switchNetwork(caipNetworkId) {
      const channel = await waitForSecureChannel()
      await channel.request('switchNetwork', { chainId: caipNetworkId })
    },

    async signMessage(address, message, caipNetworkId) {
      const params = { message: base58.encode(message), pubkey: address }
      return base58.decode(await request('solana_signMessage', params, caipNetworkId, 'signature'))
    },

    async signTransaction(_address, transaction, caipNetworkId) {
      const params = { transaction: base64.encode(transaction) }
      return base64.decode(
        await request('solana_signTransaction', params, caipNetworkId, 'transaction'),
      )
    },

    async signAndSendTransaction(_address, transaction, caipNetworkId, options) {
      const params = {
        transaction: base64.encode(transaction),
        ...(options ? { sendOptions: options } : {}),
      }
      return request('solana_signAndSendTransaction', params, caipNetworkId, 'signature')
    },
  }
}
