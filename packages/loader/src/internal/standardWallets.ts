/**
 * The host page's Wallet Standard wallets (Solana browser wallets inject into
 * the top page, not into the widget's frame): the Solana bridge takes each
 * wallet registered with it, offers the widget those with a Solana chain and
 * the features it relays (`Host.StandardWallet`), and calls their features
 * for the widget alone (`Host.StandardWalletRequest`), bytes in base64.
 *
 * Everything a wallet is made of belongs to the page: each property is read
 * once per look, in a `try`, bounded, and copied into plain data; what
 * crosses to the widget is built here, never a wallet's own object.
 */
import {
  DisconnectedError,
  InvalidParamsError,
  RpcError,
  UnsupportedMethodError,
  UserRejectedError,
} from '@porthole/protocol/Errors'
import type { StandardWallet, StandardWalletRequest } from '@porthole/protocol/Host'
import {
  maxHostWallets,
  maxIconLength,
  maxStandardAccounts,
  maxStandardChains,
  shortLength,
  solanaAddressPattern,
  standardChainPattern,
  standardFeatures,
} from '@porthole/protocol/HostGuards'
import { hasKeys } from '@porthole/protocol/Wire'
import { base64 } from '@scure/base'
import { fromWalletError } from './hostWallets.js'

/** How many registered wallets are followed (a page's non-Solana ones count too). */
export const maxTrackedWallets = 64
/** The longest byte string a wallet may return (a transaction is at most 1,232). */
export const maxResultBytes = 65_536
/** The Standard's errors are unauthorised (EIP-1193 4100) for an account the wallet has not given. */
const unauthorized = 4100

type Feature = (typeof standardFeatures)[number]
type Tracked = { id: string; wallet: object; stop?: (() => void) | undefined }
type Fields = Record<string, unknown>

/** What `read` returns, or `undefined` when it throws (a page's getter may). */
export const attempt = <value>(read: () => value): value | undefined => {
  try {
    return read()
  } catch {
    return undefined
  }
}

/** The first `max` items of a page's array (its own `slice` not trusted); none for anything else. */
const items = (value: unknown, max: number): unknown[] =>
  attempt(() => (Array.isArray(value) ? Array.prototype.slice.call(value, 0, max) : [])) ?? []

const field = (value: unknown, key: string): unknown => attempt(() => (value as Fields)[key])

/** The method a feature is called by (`standard:events` → `on`, `solana:signMessage` → `signMessage`). */
const methodOf = (feature: Feature) =>
  feature === 'standard:events' ? 'on' : (feature.split(':')[1] as string)

/** Distinct strings of `values` matching `pattern`, at most `max`. */
const matching = (values: unknown[], pattern: RegExp, max: number): string[] =>
  [
    ...new Set(
      values.filter((value): value is string => typeof value === 'string' && pattern.test(value)),
    ),
  ].slice(0, max)

const addressesOf = (accounts: unknown): string[] =>
  matching(
    items(accounts, maxTrackedWallets).map((account) => field(account, 'address')),
    solanaAddressPattern,
    maxStandardAccounts,
  )

/** The wallet as the widget may see it, or `undefined` when it is not one to offer. */
function describe({ id, wallet }: Tracked): StandardWallet | undefined {
  const name = field(wallet, 'name')
  const icon = field(wallet, 'icon')
  const chains = matching(
    items(field(wallet, 'chains'), maxTrackedWallets),
    standardChainPattern,
    maxStandardChains,
  )
  const implementations = field(wallet, 'features')
  const features = standardFeatures.filter(
    (feature) => typeof field(field(implementations, feature), methodOf(feature)) === 'function',
  )
  const has = (feature: Feature) => features.includes(feature)
  if (typeof name !== 'string' || !name || name.length > shortLength) return
  if (!chains.length || !has('standard:connect')) return
  if (!has('solana:signMessage') && !has('solana:signTransaction')) return
  return {
    id,
    name,
    icon:
      typeof icon === 'string' && icon.length <= maxIconLength && icon.startsWith('data:image/')
        ? icon
        : '',
    chains,
    features,
    accounts: addressesOf(field(wallet, 'accounts')),
  }
}

// Parsing the widget's inputs: the widget is ours, but the loader checks what it relays.
const invalid = () => new InvalidParamsError('Invalid parameters for standardWalletRequest.')
const isBase64 = (value: unknown): value is string =>
  typeof value === 'string' &&
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)
const commitmentPattern = /^[a-zA-Z]{1,16}$/
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0

/** `input` if its keys are `required` plus some of `optional`, else an InvalidParamsError. */
function inputOf(input: Fields, required: string[], optional: string[] = []): Fields {
  if (!hasKeys(input, required, optional)) throw invalid()
  return input
}

/** The bytes of a base64 input. */
function bytesOf(value: unknown): Uint8Array {
  if (!isBase64(value)) throw invalid()
  return base64.decode(value)
}

/** `signAndSendTransaction`'s options, field by field. */
function optionsOf(value: unknown): Fields | undefined {
  if (value === undefined) return
  const keys = [
    'preflightCommitment',
    'commitment',
    'skipPreflight',
    'maxRetries',
    'minContextSlot',
  ]
  const options = inputOf(value as Fields, [], keys)
  const ok = (key: string, test: (value: unknown) => boolean) =>
    options[key] === undefined || test(options[key])
  const isCommitment = (value: unknown) =>
    typeof value === 'string' && commitmentPattern.test(value)
  if (
    !ok('preflightCommitment', isCommitment) ||
    !ok('commitment', isCommitment) ||
    !ok('skipPreflight', (value) => typeof value === 'boolean') ||
    !ok('maxRetries', isCount) ||
    !ok('minContextSlot', isCount)
  )
    throw invalid()
  return options
}

/** A wallet's byte string as base64, if it is one of at most `max` bytes (exactly `max` when `exact`). */
function toBase64(value: unknown, max = maxResultBytes, exact = false): string {
  const ok = value instanceof Uint8Array && (exact ? value.length === max : value.length <= max)
  if (!ok) throw new RpcError(-32603, 'The wallet answered with an invalid result.')
  return base64.encode(value)
}

/**
 * A wallet's error as one that may cross: its numeric code and message, as
 * the host wallets' are; without a code, a refusal in words ('User rejected',
 * 'denied', 'declined', 'cancelled') is EIP-1193's 4001.
 */
export function fromStandardError(error: unknown): RpcError {
  const { code, message } = attempt(() => {
    const { code, message } = error as Fields
    return { code, message }
  }) ?? { code: undefined, message: undefined }
  if (
    code === undefined &&
    typeof message === 'string' &&
    /reject|denied|declin|cancel/i.test(message)
  )
    return new UserRejectedError()
  return fromWalletError({ code, message })
}

export type StandardWallets = {
  /** Takes a wallet the page registered. */
  add(wallet: unknown): void
  remove(wallet: unknown): void
  list(): StandardWallet[]
  /** Sends the list now, changed or not (to a new channel). */
  resend(): void
  request(request: StandardWalletRequest): Promise<unknown>
  stop(): void
}

/**
 * Follows the wallets given to `add`. `onChange` receives the list whenever
 * what it offers changes (a wallet added or removed, a `standard:events`
 * change, a request that may have changed its accounts), once per task.
 * `own` is Porthole's Standard wallet, never offered to itself.
 */
export function createStandardWallets(
  own: unknown,
  onChange: (wallets: StandardWallet[]) => void,
): StandardWallets {
  const tracked: Tracked[] = []
  let count = 0
  let sent = ''
  let scheduled = false

  const list = () =>
    tracked
      .map(describe)
      .filter((wallet): wallet is StandardWallet => wallet !== undefined)
      .slice(0, maxHostWallets)

  /** Sends the list if it changed since last sent (or in any case when `always`). */
  const send = (always = false) => {
    const wallets = list()
    const key = JSON.stringify(wallets)
    if (key === sent && !always) return
    sent = key
    onChange(wallets)
  }

  const changed = () => {
    if (scheduled) return
    scheduled = true
    queueMicrotask(() => {
      scheduled = false
      send()
    })
  }

  const add = (wallet: unknown) => {
    if (typeof wallet !== 'object' || wallet === null || wallet === own) return
    if (tracked.length >= maxTrackedWallets || tracked.some((found) => found.wallet === wallet))
      return
    const found: Tracked = { id: `standard:${count++}`, wallet }
    tracked.push(found)
    const events = field(field(wallet, 'features'), 'standard:events')
    const on = field(events, 'on')
    if (typeof on === 'function') {
      const stop = attempt(() => Reflect.apply(on, events, ['change', changed]))
      found.stop = typeof stop === 'function' ? () => attempt(stop as () => void) : undefined
    }
    changed()
  }

  const remove = (wallet: unknown) => {
    const index = tracked.findIndex((found) => found.wallet === wallet)
    if (index < 0) return
    tracked.splice(index, 1)[0]?.stop?.()
    changed()
  }

  /** The wallet's own account object for `address`, which it must have authorised. */
  const accountOf = (wallet: object, address: unknown) => {
    const account = items(field(wallet, 'accounts'), maxTrackedWallets).find(
      (account) => typeof address === 'string' && field(account, 'address') === address,
    )
    if (!account) throw new RpcError(unauthorized, 'The wallet has not authorised that account.')
    return account
  }

  /** The widget's input as the feature's one input. */
  const toInput = (wallet: object, feature: Feature, input: Fields): Fields | undefined => {
    switch (feature) {
      case 'standard:connect': {
        const { silent } = inputOf(input, [], ['silent'])
        if (silent !== undefined && typeof silent !== 'boolean') throw invalid()
        return { silent: silent === true }
      }
      case 'standard:disconnect':
        inputOf(input, [])
        return
      case 'solana:signMessage': {
        const { account, message } = inputOf(input, ['account', 'message'])
        return { account: accountOf(wallet, account), message: bytesOf(message) }
      }
      case 'solana:signTransaction': {
        const { account, chain, transaction } = inputOf(
          input,
          ['account', 'transaction'],
          ['chain'],
        )
        if (chain !== undefined && !standardChainPattern.test(String(chain))) throw invalid()
        const bytes = bytesOf(transaction)
        const signer = accountOf(wallet, account)
        return chain === undefined
          ? { account: signer, transaction: bytes }
          : { account: signer, transaction: bytes, chain }
      }
      default: {
        const { account, chain, transaction, options } = inputOf(
          input,
          ['account', 'chain', 'transaction'],
          ['options'],
        )
        if (typeof chain !== 'string' || !standardChainPattern.test(chain)) throw invalid()
        const sendOptions = optionsOf(options)
        const bytes = bytesOf(transaction)
        const signer = accountOf(wallet, account)
        return sendOptions
          ? { account: signer, chain, transaction: bytes, options: sendOptions }
          : { account: signer, chain, transaction: bytes }
      }
    }
  }

  /** The feature's output as plain JSON for the widget. */
  const toResult = (feature: Feature, output: unknown): unknown => {
    switch (feature) {
      case 'standard:connect':
        return { accounts: addressesOf(field(output, 'accounts')) }
      case 'standard:disconnect':
        return null
      case 'solana:signMessage':
        return {
          signedMessage: toBase64(field(output, 'signedMessage')),
          signature: toBase64(field(output, 'signature'), 64, true),
        }
      case 'solana:signTransaction':
        return { signedTransaction: toBase64(field(output, 'signedTransaction')) }
      default:
        return { signature: toBase64(field(output, 'signature'), 64, true) }
    }
  }

  return {
    add,
    remove,
    list,
    resend: () => send(true),
    async request({ id, feature, input }) {
      const found = tracked.find((found) => found.id === id)
      const offered = found && list().find((wallet) => wallet.id === id)
      if (!found || !offered) throw new DisconnectedError('That wallet is gone.')
      if (!offered.features.includes(feature)) throw new UnsupportedMethodError(feature)
      const implementation = field(field(found.wallet, 'features'), feature)
      const method = field(implementation, methodOf(feature)) as (...args: unknown[]) => unknown
      const argument = toInput(found.wallet, feature, input)
      let output: unknown
      try {
        output = await Reflect.apply(method, implementation, argument ? [argument] : [])
      } catch (error) {
        throw fromStandardError(error)
      } finally {
        // Connecting and signing may change its accounts: its events are not trusted to say so.
        changed()
      }
      // `signMessage` and the others answer one output per input.
      return toResult(feature, feature.startsWith('solana:') ? items(output, 1)[0] : output)
    },
    stop() {
      for (const found of tracked.splice(0)) found.stop?.()
    },
  }
}
