/**
 * The embedded (email and social) wallet as one more wagmi connector, so
 * Account, send, sign and switch network work for it as for any wallet, and
 * the host's provider serves it. Its EIP-1193 provider is the secure frame:
 * every request goes there as `rpcRequest` (`secure/approval.ts`: approvals
 * show ApproveTransaction; closing the modal cancels them, 4001).
 */

import { ErrorCode, RpcError } from '@porthole/protocol/Errors'
import { type Address, getAddress } from 'viem'
import { createConnector } from 'wagmi'
import { embeddedConnectorId, requestEmbedded } from '../../secure/approval.js'
import { waitForSecureChannel } from '../../secure/frame.js'
import { clearEmailLogin } from '../../secure/login.js'
import { noteEmbeddedSession } from '../../secure/session.js'

export {
  approvalTimeout,
  embeddedConnectorId,
  markApproved,
  withApproval,
} from '../../secure/approval.js'

export const embeddedConnectorType = 'embedded'

/** Set while connected, so a reload asks the frame only when there is something to restore. */
const connectedKey = 'embedded.connected'

type RequestArguments = { method: string; params?: unknown }
/** `signal`: the host gave up on the request (its timeout, or its page went away). */
export type RequestOptions = { signal?: AbortSignal | undefined }
export type EmbeddedProvider = {
  request(args: RequestArguments, options?: RequestOptions): Promise<unknown>
}

const toEip155 = (chainId: number) => `eip155:${chainId}`

function fromCaip2(chainId: string): number | null {
  const [namespace, reference] = chainId.split(':')
  const id = Number(reference)
  return namespace === 'eip155' && Number.isSafeInteger(id) ? id : null
}

export function embedded() {
  let chainId: number | null = null
  let accounts: readonly Address[] = []

  return createConnector<EmbeddedProvider>((config) => {
    const supported = (id: number | null) =>
      id !== null && config.chains.some((chain) => chain.id === id)

    const request = (
      { method, params }: RequestArguments,
      { signal }: RequestOptions = {},
    ): Promise<unknown> =>
      requestEmbedded(
        { method, params, chainId: chainId === null ? undefined : toEip155(chainId) },
        signal,
      )
    const provider: EmbeddedProvider = { request }

    const readUser = async () => {
      const channel = await waitForSecureChannel()
      const user = await channel.request('getUser', {})
      accounts = [getAddress(user.address)]
      chainId = fromCaip2(user.chainId)
      return user
    }

    return {
      id: embeddedConnectorId,
      name: 'Email wallet',
      type: embeddedConnectorType,

      async connect(parameters = {}) {
        await readUser()
        // A new login starts on the project's default network; a reconnect keeps
        // the one the wallet was on, if the project still offers it.
        const wanted =
          parameters.chainId ??
          (parameters.isReconnecting && supported(chainId) ? chainId : config.chains[0].id)
        if (wanted !== null && wanted !== chainId) await this.switchChain?.({ chainId: wanted })
        await config.storage?.setItem(connectedKey, true)
        noteEmbeddedSession(true)
        return {
          accounts: accounts as never,
          chainId: chainId ?? config.chains[0].id,
        }
      },

      async disconnect() {
        accounts = []
        clearEmailLogin()
        await config.storage?.removeItem(connectedKey)
        noteEmbeddedSession(false)
        const channel = await waitForSecureChannel().catch(() => null)
        await channel?.request('signOut', undefined).catch(() => undefined)
      },

      async getAccounts() {
        if (accounts.length === 0) await readUser()
        return accounts
      },

      async getChainId() {
        if (chainId !== null) return chainId
        const channel = await waitForSecureChannel()
        const answer = await channel.request('getChainId', undefined)
        chainId = fromCaip2(answer.chainId) ?? config.chains[0].id
        return chainId
      },

      async isAuthorized() {
        if (!(await config.storage?.getItem(connectedKey))) return false
        try {
          const channel = await waitForSecureChannel()
          const { isConnected } = await channel.request('isConnected', undefined)
          // SPEC 4: the email login cache is cleared when the check says not connected.
          if (!isConnected) {
            clearEmailLogin()
            await config.storage?.removeItem(connectedKey)
            noteEmbeddedSession(false)
          }
          return isConnected
        } catch {
          return false
        }
      },

      async switchChain({ chainId: target }) {
        const chain = config.chains.find((candidate) => candidate.id === target)
        if (!chain) throw new RpcError(ErrorCode.unknownChain, `Unrecognized chain ID ${target}.`)
        const channel = await waitForSecureChannel()
        await channel.request('switchNetwork', { chainId: toEip155(target) })
        chainId = target
        config.emitter.emit('change', { chainId: target })
        return chain
      },

      async getProvider() {
        return provider
      },

      onAccountsChanged(next) {
        if (next.length === 0) this.onDisconnect()
        else config.emitter.emit('change', { accounts: next.map((account) => getAddress(account)) })
      },

      onChainChanged(next) {
        const id = Number(next)
        chainId = id
        config.emitter.emit('change', { chainId: id })
      },

      onDisconnect() {
        accounts = []
        config.emitter.emit('disconnect')
      },
    }
  })
}
