/**
 * The embedded (email and social) wallet as one more wagmi connector, so
 * Account, send, sign and switch network work for it as for any wallet, and
 * the host's provider serves it. Its EIP-1193 provider is the secure frame:
 * every request goes there as `rpcRequest`. The frame runs safe methods at
 * once; for a method that needs approval the widget first shows
 * ApproveTransaction, which lays the frame over the modal so the user can
 * read the request and click Approve or Reject in the frame's own UI
 * (SECURITY.md 6). Closing the modal or leaving that view cancels the request
 * (4001); nothing is signed without the frame's click.
 */

import { providerRequestTimeout } from '@porthole/protocol/Constants'
import { needsApproval } from '@porthole/protocol/EmbeddedRpc'
import { ErrorCode, RpcError, UserRejectedError } from '@porthole/protocol/Errors'
import { type Address, getAddress } from 'viem'
import { createConnector } from 'wagmi'
import { queryClient } from '../../data/queryClient.js'
import { projectConfigQuery } from '../../host/projectConfig.js'
import { waitForSecureChannel } from '../../secure/frame.js'
import { clearEmailLogin } from '../../secure/login.js'
import { router } from '../../state/router.js'
import { currentView, type Store, store, type WidgetState } from '../../state/store.js'

export const embeddedConnectorId = 'xyz.porthole.embedded'
export const embeddedConnectorType = 'embedded'

/** How long a request waits for the user's decision: the host's own limit (SECURITY.md 17). */
export const approvalTimeout = providerRequestTimeout

/** Set while connected, so a reload asks the frame only when there is something to restore. */
const connectedKey = 'embedded.connected'

type RequestArguments = { method: string; params?: unknown }
/** `signal`: the host gave up on the request (its timeout, or its page went away). */
export type RequestOptions = { signal?: AbortSignal | undefined }
export type EmbeddedProvider = {
  request(args: RequestArguments, options?: RequestOptions): Promise<unknown>
}

const hostOrigin = () => store.getState().hostOrigin

const toEip155 = (chainId: number) => `eip155:${chainId}`

function fromCaip2(chainId: string): number | null {
  const [namespace, reference] = chainId.split(':')
  const id = Number(reference)
  return namespace === 'eip155' && Number.isSafeInteger(id) ? id : null
}

/**
 * Approvals waiting in the frame, by the `approvalId` each request carries.
 * The frame's `approved` event names the one the visitor approved (the frame
 * may show them in another order than they were asked: a transaction waits
 * for its fees first). An approved one is being signed and sent: closing the
 * modal no longer cancels it, and the host gets its real result (SECURITY.md 17).
 */
const active = new Map<string, { approved: boolean }>()
/** The frame's visitor approved the request named `approvalId`; an unknown id does nothing. */
export function markApproved({ approvalId }: { approvalId: string }): void {
  const entry = active.get(approvalId)
  if (entry) entry.approved = true
}
/** Channels to a secure frame whose `approved` events are followed. */
const followed = new WeakSet<object>()
function followApprovals(channel: {
  on(name: 'approved', listener: (payload: { approvalId: string }) => void): () => void
}): void {
  if (followed.has(channel)) return
  followed.add(channel)
  channel.on('approved', markApproved)
}

/** Where the modal was before the first waiting approval. */
let waiting = 0
let before: Pick<WidgetState, 'open' | 'history'> | null = null

/**
 * Runs `send` while ApproveTransaction shows. The modal opens on that view (or
 * pushes it when open); once the last waiting request settles the modal goes
 * back to where it was. Closing the modal or navigating away aborts `send`'s
 * signal, which cancels the request in the frame, and answers 4001. So does
 * `cancel` (the host gave up): the approval closes and nothing is signed.
 */
export async function withApproval<result>(
  method: string,
  send: (signal: AbortSignal, approvalId: string) => Promise<result>,
  target: Store<WidgetState> = store,
  cancel?: AbortSignal,
): Promise<result> {
  if (cancel?.aborted) throw new UserRejectedError('The site gave up on the request.')
  const controller = new AbortController()
  const approvalId = crypto.randomUUID()
  const entry = { approved: false }
  active.set(approvalId, entry)
  const onCancel = () => controller.abort()
  cancel?.addEventListener('abort', onCancel, { once: true })
  if (waiting++ === 0) {
    const { open, history } = target.getState()
    before = { open, history }
    if (open) router.navigate('ApproveTransaction')
    else router.open('ApproveTransaction')
  }
  target.setState({ approval: { method } })
  const unsubscribe = target.subscribe(() => {
    const state = target.getState()
    if (entry.approved) return
    if (!state.open || currentView(state) !== 'ApproveTransaction') controller.abort()
  })
  try {
    return await send(controller.signal, approvalId)
  } catch (error) {
    if (controller.signal.aborted)
      throw new UserRejectedError('The user closed the approval without deciding.')
    throw error
  } finally {
    unsubscribe()
    active.delete(approvalId)
    cancel?.removeEventListener('abort', onCancel)
    if (--waiting === 0) {
      target.setState({ approval: null })
      // Back to where the modal was (closed, or on the view that asked),
      // unless the user already went elsewhere.
      if (before && currentView(target.getState()) === 'ApproveTransaction') target.setState(before)
      before = null
    }
  }
}

/**
 * The network of a request: the project's first Solana network for a
 * `solana_*` method (until the Solana adapter routes those with its own
 * connection's network), else the connection's EVM chain.
 */
async function networkOf(method: string, chainId: number | null): Promise<string | undefined> {
  if (!method.startsWith('solana_')) return chainId === null ? undefined : toEip155(chainId)
  const { networks } = await queryClient.fetchQuery(projectConfigQuery)
  return networks.find((network) => network.startsWith('solana:'))
}

export function embedded() {
  let chainId: number | null = null
  let accounts: readonly Address[] = []

  return createConnector<EmbeddedProvider>((config) => {
    const supported = (id: number | null) =>
      id !== null && config.chains.some((chain) => chain.id === id)

    const request = async (
      { method, params }: RequestArguments,
      { signal }: RequestOptions = {},
    ): Promise<unknown> => {
      const channel = await waitForSecureChannel()
      const network = await networkOf(method, chainId)
      const body = {
        method,
        ...(params === undefined ? {} : { params: params as unknown[] }),
        ...(network === undefined ? {} : { chainId: network }),
        // The host origin the browser gave the widget, for a frame whose browser
        // has no `location.ancestorOrigins` (it prefers its own, SECURITY.md 8).
        ...(hostOrigin() ? { origin: hostOrigin() as string } : {}),
      }
      if (!needsApproval(method)) return channel.request('rpcRequest', body, { signal })
      followApprovals(channel)
      return withApproval(
        method,
        (aborted, approvalId) =>
          channel.request(
            'rpcRequest',
            { ...body, approvalId },
            { signal: aborted, timeout: approvalTimeout },
          ),
        store,
        signal,
      )
    }
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
        return {
          accounts: accounts as never,
          chainId: chainId ?? config.chains[0].id,
        }
      },

      async disconnect() {
        accounts = []
        clearEmailLogin()
        await config.storage?.removeItem(connectedKey)
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
