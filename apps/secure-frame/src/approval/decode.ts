/**
 * What an approval shows, decoded from the request: pure, no DOM. Everything
 * here comes from the host and is untrusted: it becomes plain strings that the
 * view writes with `textContent` only. Sizes are bounded: long values are
 * clipped (and say so), long lists stop with a note.
 */
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { base58 } from '@scure/base'
import {
  decodeFunctionData,
  erc20Abi,
  formatGwei,
  formatUnits,
  hexToBytes,
  isHex,
  maxUint256,
} from 'viem'
import { describeSolanaTransaction } from './decodeSolana.js'
import type { ApprovalMethod, Token } from './request.js'

/** A label and its value; `mono` for addresses, hashes and hex. */
export type Field = { readonly label: string; readonly value: string; readonly mono?: boolean }

export type Section =
  | { readonly type: 'fields'; readonly title?: string; readonly fields: readonly Field[] }
  | {
      readonly type: 'text'
      readonly title: string
      readonly text: string
      readonly format: 'text' | 'hex' | 'json' | 'encoded'
    }

export type Kind =
  | 'message'
  | 'typedData'
  | 'transaction'
  | 'calls'
  | 'permissions'
  | 'userOperation'
  | 'solanaTransaction'
  | 'emailChange'

export type Display = {
  readonly kind: Kind
  /** The approval's heading. */
  readonly title: string
  readonly sections: readonly Section[]
  /** Warnings and caveats, shown above the details. */
  readonly notes: readonly string[]
}

export type DecodeInput = {
  readonly method: ApprovalMethod
  readonly params: unknown
  /** CAIP-2 of the network the request runs on. */
  readonly chainId: string
  readonly account: string
  /** ERC-20 details read from the chain; a token not listed shows raw units. */
  readonly tokens?: readonly Token[] | undefined
}

/** Longest value kept whole; a longer one is clipped and says how much is left out. */
export const maxValueLength = 20_000
/** Most fields listed from typed data. */
export const maxFields = 64
/** Deepest typed-data nesting flattened into dotted keys; deeper values show as JSON. */
export const maxFlattenDepth = 6
/** Most calls of `wallet_sendCalls` listed. */
export const maxCalls = 32

/** A network's own currency, as packages/chains defines it. */
export type Currency = {
  /** `undefined` for a network Porthole does not know. */
  readonly symbol: string | undefined
  readonly decimals: number
}

/** The currency of `chainId`: its symbol and decimals, or 18 unnamed decimals for an unknown EVM network. */
export function currencyOf(chainId: string): Currency {
  const network = getByCaipNetworkId(chainId)
  if (network) return network.nativeCurrency
  return { symbol: undefined, decimals: 18 }
}

/** `amount` (smallest units) in `currency`: '1.5 POL'. */
export function formatNative(amount: bigint, currency: Currency, chainId: string): string {
  const value = formatUnits(amount, currency.decimals)
  return currency.symbol === undefined
    ? `${value} (native currency of ${chainId})`
    : `${value} ${currency.symbol}`
}

const unknownNetworkNote =
  'Porthole does not know this network: its amounts are shown assuming 18 decimals.'

const notDecodedNote = "The request's parameters are not in the expected form: check them below."

/** `text`, or its first `max` characters and how many were left out. */
export function clip(text: string, max: number = maxValueLength): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}… (${text.length - max} more characters not shown)`
}

/** Pretty JSON, bounded; never throws. */
export function toJson(value: unknown): string {
  try {
    const json = JSON.stringify(value, null, 2)
    return clip(json === undefined ? 'none' : json)
  } catch {
    return '(not JSON)'
  }
}

const unprintable =
  // C0 controls but tab, newline and carriage return; DEL and C1 controls;
  // bidirectional overrides and isolates, which can make text read as other text.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufeff\ufffd]/

/** The bytes as UTF-8 text when they are valid UTF-8 and printable, else `undefined`. */
export function toPrintableText(bytes: Uint8Array): string | undefined {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return
  }
  if (text.length === 0 || unprintable.test(text)) return
  return text
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A primitive for display; anything else as compact JSON. */
function toText(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (value === null) return 'null'
  if (value === undefined) return 'none'
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return '(not JSON)'
  }
}

function sameAddress(a: unknown, b: string): boolean {
  return typeof a === 'string' && a.toLowerCase() === b.toLowerCase()
}

/** The numeric part of an `eip155:N` chain id, else `undefined`. */
function evmChainNumber(chainId: string): bigint | undefined {
  const match = /^eip155:(\d{1,20})$/.exec(chainId)
  return match?.[1] === undefined ? undefined : BigInt(match[1])
}

/** A non-negative integer from a hex or decimal string or a safe integer, else `undefined`. */
export function toQuantity(value: unknown): bigint | undefined {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined
  if (typeof value !== 'string' || value.length === 0 || value.length > 80) return
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(value)) return
  return BigInt(value)
}

/** What amounts are read against: the network's currency and the tokens' details. */
type Units = {
  readonly chainId: string
  readonly currency: Currency
  readonly tokens: readonly Token[]
}

function unitsOf(input: DecodeInput, notes: string[]): Units {
  const currency = currencyOf(input.chainId)
  if (currency.symbol === undefined && evmChainNumber(input.chainId) !== undefined)
    notes.push(unknownNetworkNote)
  return { chainId: input.chainId, currency, tokens: input.tokens ?? [] }
}

/** `value` (smallest units) in the network's currency, or the raw value and a note when it is not a quantity. */
function formatAmount(value: unknown, units: Units, notes: string[]): string {
  if (value === undefined || value === null) return formatNative(0n, units.currency, units.chainId)
  const amount = toQuantity(value)
  if (amount === undefined) {
    notes.push('The amount is not a valid number.')
    return clip(toText(value), 200)
  }
  return formatNative(amount, units.currency, units.chainId)
}

const rawUnitsLabel = 'raw units: the token’s symbol and decimals could not be read'

/** A token amount in its own units ('12.5 PTT'), or raw units and why. */
function formatTokenAmount(amount: bigint, token: Token | undefined): string {
  if (!token) return `${amount} (${rawUnitsLabel})`
  return `${formatUnits(amount, token.decimals)} ${token.symbol}`
}

/** The same amount, short, for the action line. */
function shortTokenAmount(amount: bigint, token: Token | undefined): string {
  return token ? formatTokenAmount(amount, token) : `${amount} (raw units)`
}

const erc20Actions = new Set(['transfer', 'approve', 'transferFrom'])

/** What calldata does, as fields: an ERC-20 transfer or approval, else a contract call. */
export function describeCallData(
  to: unknown,
  data: unknown,
  notes: string[],
  tokens: readonly Token[] = [],
): Field[] {
  if (data === undefined || data === null || data === '0x' || data === '') return []
  if (typeof data !== 'string' || !isHex(data, { strict: true }) || data.length % 2 !== 0) {
    notes.push('The call data is not valid hex.')
    return [{ label: 'Data', value: clip(toText(data)), mono: true }]
  }
  const size = (data.length - 2) / 2
  const selector = data.slice(0, 10)
  const token = typeof to === 'string' ? to : 'unknown'
  const details = tokens.find((candidate) => sameAddress(candidate.address, token))
  if (size >= 4) {
    try {
      const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data })
      if (erc20Actions.has(functionName)) {
        const fields: Field[] = []
        if (functionName === 'transfer') {
          const [recipient, amount] = args as readonly [string, bigint]
          fields.push(
            {
              label: 'Action',
              value: `Transfer ${shortTokenAmount(amount, details)} to ${recipient}`,
            },
            { label: 'Token contract', value: token, mono: true },
            { label: 'Recipient', value: recipient, mono: true },
            { label: 'Token amount', value: formatTokenAmount(amount, details) },
          )
        } else if (functionName === 'approve') {
          const [spender, amount] = args as readonly [string, bigint]
          const unlimited = amount === maxUint256
          const allowance = unlimited ? 'unlimited' : formatTokenAmount(amount, details)
          fields.push(
            {
              label: 'Action',
              value: unlimited
                ? `Allow ${spender} to spend all your tokens`
                : `Allow ${spender} to spend ${shortTokenAmount(amount, details)}`,
            },
            { label: 'Token contract', value: token, mono: true },
            { label: 'Spender', value: spender, mono: true },
            { label: 'Allowance', value: allowance },
          )
          if (isEffectivelyUnlimited(amount))
            notes.push('This approval lets the spender take all your tokens.')
        } else {
          const [from, recipient, amount] = args as readonly [string, string, bigint]
          fields.push(
            {
              label: 'Action',
              value: `Transfer ${shortTokenAmount(amount, details)} from ${from} to ${recipient}`,
            },
            { label: 'Token contract', value: token, mono: true },
            { label: 'From', value: from, mono: true },
            { label: 'Recipient', value: recipient, mono: true },
            { label: 'Token amount', value: formatTokenAmount(amount, details) },
          )
        }
        fields.push({ label: 'Function', value: `${functionName} (${selector})`, mono: true })
        return fields
      }
    } catch {
      // Not an ERC-20 call this file knows: described as a contract call below.
    }
  }
  notes.push(
    'This calls a contract function Porthole cannot decode: approve only if you trust this site and expect this call.',
  )
  return [
    { label: 'Action', value: 'Contract call' },
    { label: 'Function selector', value: size >= 4 ? selector : 'none', mono: true },
    { label: 'Data size', value: `${size} ${size === 1 ? 'byte' : 'bytes'}` },
    { label: 'Data', value: clip(data), mono: true },
  ]
}

/** A chain id written in a request (`0x7a69`, `31337`, 31337) that differs from the network's. */
function checkChain(value: unknown, chainId: string, notes: string[], what: string): void {
  if (value === undefined || value === null) return
  const expected = evmChainNumber(chainId)
  const given = toQuantity(value)
  if (expected === undefined || given === expected) return
  notes.push(`The ${what} names chain ${clip(toText(value), 80)}, not this network (${chainId}).`)
}

function otherSigner(given: unknown, account: string, notes: string[]): void {
  if (given === undefined || sameAddress(given, account)) return
  notes.push(`The request names another account: ${clip(toText(given), 200)}.`)
}

function decodePersonalSign(input: DecodeInput): Display {
  const notes: string[] = []
  const title = 'Sign message'
  const params = input.params
  if (!Array.isArray(params) || typeof params[0] !== 'string') {
    return raw('message', title, input, [notDecodedNote])
  }
  const [message, address] = params as [string, unknown]
  otherSigner(address, input.account, notes)
  if (isHex(message, { strict: true }) && message.length % 2 === 0) {
    const text = toPrintableText(hexToBytes(message))
    const section: Section =
      text === undefined
        ? { type: 'text', title: 'Message (hex)', text: clip(message), format: 'hex' }
        : { type: 'text', title: 'Message', text: clip(text), format: 'text' }
    return { kind: 'message', title, sections: [section], notes }
  }
  // Not hex: wallets sign such a string as its UTF-8 bytes; show it as text unless it hides characters.
  const section: Section = unprintable.test(message)
    ? {
        type: 'text',
        title: 'Message (escaped)',
        text: clip(JSON.stringify(message)),
        format: 'json',
      }
    : { type: 'text', title: 'Message', text: clip(message), format: 'text' }
  return { kind: 'message', title, sections: [section], notes }
}

/** Nested values as dotted keys (`order.items.0.price`), bounded in depth and count. */
export function flatten(
  value: unknown,
  maxCount: number = maxFields,
): { fields: Field[]; omitted: number } {
  const fields: Field[] = []
  let omitted = 0
  const visit = (item: unknown, path: string, depth: number) => {
    const container = Array.isArray(item) || isRecord(item)
    if (!container || depth >= maxFlattenDepth) {
      if (fields.length >= maxCount) omitted += 1
      else fields.push({ label: path || '(value)', value: clip(toText(item), 2_000) })
      return
    }
    const entries = Array.isArray(item)
      ? item.map((child, index) => [String(index), child] as const)
      : Object.entries(item)
    if (entries.length === 0) {
      if (fields.length >= maxCount) omitted += 1
      else fields.push({ label: path || '(value)', value: Array.isArray(item) ? '[]' : '{}' })
      return
    }
    for (const [key, child] of entries) visit(child, path ? `${path}.${key}` : key, depth + 1)
  }
  visit(value, '', 0)
  return { fields, omitted }
}

const domainKeys = ['name', 'version', 'chainId', 'verifyingContract', 'salt'] as const

/** Typed data that lets a spender move tokens without a transaction (EIP-2612, Permit2). */
const permitTypes = new Set([
  'Permit',
  'PermitSingle',
  'PermitBatch',
  'PermitTransferFrom',
  'PermitBatchTransferFrom',
  'PermitWitnessTransferFrom',
  'PermitBatchWitnessTransferFrom',
])

/**
 * An allowance no real balance reaches: Permit2's largest (2^160 - 1) or more,
 * so `maxUint256 - 1` is as unlimited as `maxUint256`.
 */
function isEffectivelyUnlimited(amount: bigint | undefined): boolean {
  return amount !== undefined && amount >= 2n ** 160n - 1n
}

/** Warnings for a permit: it spends tokens like an approval, without a transaction. */
function permitNotes(primaryType: string, message: Record<string, unknown>): string[] {
  if (!permitTypes.has(primaryType)) return []
  const notes = [
    'This signature is a permit: it lets a spender move your tokens without another approval from you.',
  ]
  const amounts: unknown[] = [message.value, message.amount]
  // Single permits hold one `details`/`permitted` record, batches a list of them.
  for (const nested of [message.details, message.permitted])
    for (const item of Array.isArray(nested) ? nested : [nested])
      if (isRecord(item)) amounts.push(item.amount)
  if (amounts.some((amount) => isEffectivelyUnlimited(toQuantity(amount))))
    notes.push('This permit lets the spender take all your tokens.')
  return notes
}

function decodeTypedData(input: DecodeInput): Display {
  const title = 'Sign typed data'
  const params = input.params
  if (!Array.isArray(params)) return raw('typedData', title, input, [notDecodedNote])
  const [address, data] = params as [unknown, unknown]
  let typed: unknown = data
  if (typeof data === 'string') {
    try {
      typed = JSON.parse(data)
    } catch {
      return raw('typedData', title, input, ['The typed data is not valid JSON.'])
    }
  }
  if (!isRecord(typed) || !isRecord(typed.message) || typeof typed.primaryType !== 'string')
    return raw('typedData', title, input, [notDecodedNote])
  const notes: string[] = []
  otherSigner(address, input.account, notes)
  const domain = isRecord(typed.domain) ? typed.domain : {}
  checkChain(domain.chainId, input.chainId, notes, 'typed data')
  const domainFields: Field[] = []
  for (const key of domainKeys) {
    if (domain[key] === undefined) continue
    domainFields.push({
      label:
        key === 'verifyingContract'
          ? 'Verifying contract'
          : key === 'chainId'
            ? 'Chain id'
            : key[0]?.toUpperCase() + key.slice(1),
      value: clip(toText(domain[key]), 2_000),
      mono: key === 'verifyingContract' || key === 'salt',
    })
  }
  notes.push(...permitNotes(typed.primaryType, typed.message))
  const { fields, omitted } = flatten(typed.message)
  if (omitted > 0) notes.push(`${omitted} more fields are not listed: check the full data.`)
  const sections: Section[] = [
    { type: 'fields', title: 'Domain', fields: domainFields },
    {
      type: 'fields',
      title: `Message: ${clip(typed.primaryType, 100)}`,
      fields: [{ label: 'Primary type', value: clip(typed.primaryType, 200) }, ...fields],
    },
  ]
  if (omitted > 0)
    sections.push({ type: 'text', title: 'Full data', text: toJson(typed), format: 'json' })
  return { kind: 'typedData', title, sections, notes }
}

/** The transaction keys this approval shows; any other is named in a note. */
const transactionKeys = new Set([
  'type',
  'chainId',
  'from',
  'to',
  'value',
  'data',
  'input',
  'nonce',
  'gas',
  'gasLimit',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
])

function transactionFields(
  tx: Record<string, unknown>,
  units: Units,
  notes: string[],
): { fields: Field[]; action: Field[]; gas: Field[] } {
  const unknown = Object.keys(tx).filter((key) => !transactionKeys.has(key))
  if (unknown.length > 0)
    notes.push(
      `The request has fields this approval does not show: ${clip(unknown.join(', '), 200)}.`,
    )
  // The wallet signs `input` when there is no `data` (and refuses the two when they differ).
  const data = tx.data ?? tx.input
  if (tx.data !== undefined && tx.input !== undefined && tx.data !== tx.input)
    notes.push('The request gives two different call data (data and input).')
  const fields: Field[] = []
  if (tx.to === undefined || tx.to === null) fields.push({ label: 'To', value: 'New contract' })
  else fields.push({ label: 'To', value: clip(toText(tx.to), 200), mono: true })
  fields.push({ label: 'Amount', value: formatAmount(tx.value, units, notes) })
  const action =
    tx.to === undefined || tx.to === null
      ? data === undefined || data === null || data === '0x'
        ? []
        : [{ label: 'Action', value: 'Contract deployment' }, ...dataFields(data, notes)]
      : describeCallData(tx.to, data, notes, units.tokens)
  return { fields, action, gas: gasFields(tx, units) }
}

/** Nonce, gas limit, fees and the most the network fee can be, in the network's currency. */
function gasFields(tx: Record<string, unknown>, units: Units): Field[] {
  const fields: Field[] = []
  if (tx.nonce !== undefined) fields.push({ label: 'Nonce', value: quantityText(tx.nonce) })
  const gas = toQuantity(tx.gas ?? tx.gasLimit)
  if (tx.gas !== undefined || tx.gasLimit !== undefined)
    fields.push({ label: 'Gas limit', value: quantityText(tx.gas ?? tx.gasLimit) })
  const gwei = (value: unknown) => {
    const quantity = toQuantity(value)
    return quantity === undefined ? clip(toText(value), 200) : `${formatGwei(quantity)} gwei`
  }
  if (tx.maxFeePerGas !== undefined)
    fields.push({ label: 'Max fee per gas', value: gwei(tx.maxFeePerGas) })
  if (tx.maxPriorityFeePerGas !== undefined)
    fields.push({ label: 'Max priority fee per gas', value: gwei(tx.maxPriorityFeePerGas) })
  if (tx.gasPrice !== undefined) fields.push({ label: 'Gas price', value: gwei(tx.gasPrice) })
  const price = toQuantity(tx.maxFeePerGas ?? tx.gasPrice)
  if (gas !== undefined && price !== undefined)
    fields.push({
      label: 'Max network fee',
      value: formatNative(gas * price, units.currency, units.chainId),
    })
  return fields
}

function dataFields(data: unknown, notes: string[]): Field[] {
  if (typeof data !== 'string' || !isHex(data, { strict: true })) {
    notes.push('The call data is not valid hex.')
    return [{ label: 'Data', value: clip(toText(data)), mono: true }]
  }
  const size = Math.floor((data.length - 2) / 2)
  return [
    { label: 'Data size', value: `${size} ${size === 1 ? 'byte' : 'bytes'}` },
    { label: 'Data', value: clip(data), mono: true },
  ]
}

function decodeTransaction(input: DecodeInput): Display {
  const title = 'Approve transaction'
  const params = input.params
  const tx = Array.isArray(params) ? params[0] : undefined
  if (!isRecord(tx)) return raw('transaction', title, input, [notDecodedNote])
  const notes: string[] = []
  const units = unitsOf(input, notes)
  otherSigner(tx.from, input.account, notes)
  checkChain(tx.chainId, input.chainId, notes, 'transaction')
  const { fields, action, gas } = transactionFields(tx, units, notes)
  return {
    kind: 'transaction',
    title,
    sections: [{ type: 'fields', fields: [...fields, ...action, ...gas] }],
    notes,
  }
}

function quantityText(value: unknown): string {
  const quantity = toQuantity(value)
  return quantity === undefined ? clip(toText(value), 200) : quantity.toString()
}

function decodeSendCalls(input: DecodeInput): Display {
  const title = 'Approve calls'
  const params = input.params
  const request = Array.isArray(params) ? params[0] : undefined
  if (!isRecord(request) || !Array.isArray(request.calls))
    return raw('calls', title, input, [notDecodedNote])
  const notes: string[] = []
  const units = unitsOf(input, notes)
  otherSigner(request.from, input.account, notes)
  checkChain(request.chainId, input.chainId, notes, 'request')
  const sections: Section[] = []
  const calls = request.calls
  calls.slice(0, maxCalls).forEach((call, index) => {
    const heading = `Call ${index + 1} of ${calls.length}`
    if (!isRecord(call)) {
      notes.push(`${heading} is not in the expected form.`)
      sections.push({ type: 'text', title: heading, text: toJson(call), format: 'json' })
      return
    }
    otherSigner(call.from, input.account, notes)
    checkChain(call.chainId, input.chainId, notes, 'call')
    const { fields, action, gas } = transactionFields(call, units, notes)
    sections.push({ type: 'fields', title: heading, fields: [...fields, ...action, ...gas] })
  })
  if (calls.length > maxCalls)
    notes.push(`${calls.length - maxCalls} more calls are not listed: check the full request.`)
  if (calls.length === 0) notes.push('The request has no calls.')
  if (request.capabilities !== undefined)
    sections.push({
      type: 'text',
      title: 'Capabilities',
      text: toJson(request.capabilities),
      format: 'json',
    })
  if (calls.length > maxCalls)
    sections.push({ type: 'text', title: 'Full request', text: toJson(params), format: 'json' })
  return { kind: 'calls', title, sections, notes: [...new Set(notes)] }
}

function decodeSolanaMessage(input: DecodeInput): Display {
  const title = 'Sign message'
  const params = input.params
  if (!isRecord(params) || typeof params.message !== 'string')
    return raw('message', title, input, [notDecodedNote])
  const notes: string[] = []
  if (params.pubkey !== undefined && params.pubkey !== input.account)
    notes.push(`The request names another account: ${clip(toText(params.pubkey), 200)}.`)
  let bytes: Uint8Array | undefined
  try {
    bytes = base58.decode(params.message)
  } catch {
    bytes = undefined
  }
  const text = bytes === undefined ? undefined : toPrintableText(bytes)
  let section: Section
  if (text !== undefined)
    section = { type: 'text', title: 'Message', text: clip(text), format: 'text' }
  else if (bytes !== undefined)
    section = {
      type: 'text',
      title: 'Message (hex)',
      text: clip(`0x${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`),
      format: 'hex',
    }
  else {
    notes.push('The message is not valid base58.')
    section = {
      type: 'text',
      title: 'Message (as sent)',
      text: clip(params.message),
      format: 'encoded',
    }
  }
  return { kind: 'message', title, sections: [section], notes }
}

const solanaTitles = {
  solana_signTransaction: 'Sign transaction',
  solana_signAllTransactions: 'Sign transactions',
  solana_signAndSendTransaction: 'Approve transaction',
} as const

function decodeSolanaTransaction(
  input: DecodeInput & { method: keyof typeof solanaTitles },
): Display {
  const title = solanaTitles[input.method]
  const params = input.params
  const encoded: unknown[] = isRecord(params)
    ? Array.isArray(params.transactions)
      ? params.transactions
      : [params.transaction]
    : []
  if (encoded.length === 0 || encoded.some((item) => typeof item !== 'string'))
    return raw('solanaTransaction', title, input, [notDecodedNote])
  const currency = currencyOf(input.chainId)
  const notes: string[] = []
  const sections: Section[] = []
  encoded.slice(0, maxCalls).forEach((item, index) => {
    const heading =
      encoded.length === 1 ? 'Transaction' : `Transaction ${index + 1} of ${encoded.length}`
    const described = describeSolanaTransaction(clip(item as string), { heading, currency })
    sections.push(...described.sections)
    for (const note of described.notes) if (!notes.includes(note)) notes.push(note)
  })
  if (encoded.length > maxCalls)
    notes.push(`${encoded.length - maxCalls} more transactions are not listed.`)
  const options = isRecord(params)
    ? Object.fromEntries(
        Object.entries(params).filter(([key]) => key !== 'transaction' && key !== 'transactions'),
      )
    : {}
  if (Object.keys(options).length > 0)
    sections.push({ type: 'text', title: 'Options', text: toJson(options), format: 'json' })
  return { kind: 'solanaTransaction', title, sections, notes }
}

function decodeUserOperation(input: DecodeInput): Display {
  const title = 'Approve user operation'
  const params = input.params
  const operation = Array.isArray(params) ? params[0] : undefined
  if (!isRecord(operation)) return raw('userOperation', title, input, [notDecodedNote])
  const notes: string[] = []
  otherSigner(operation.sender, input.account, notes)
  const fields: Field[] = [
    { label: 'Sender', value: clip(toText(operation.sender), 200), mono: true },
  ]
  const entryPoint = Array.isArray(params) ? params[1] : undefined
  if (entryPoint !== undefined)
    fields.push({ label: 'Entry point', value: clip(toText(entryPoint), 200), mono: true })
  if (operation.callData !== undefined) fields.push(...dataFields(operation.callData, notes))
  return {
    kind: 'userOperation',
    title,
    sections: [
      { type: 'fields', fields },
      { type: 'text', title: 'Full request', text: toJson(params), format: 'json' },
    ],
    notes,
  }
}

/** The method and its params as JSON: for methods with no decoder, and params that don't fit. */
/** What the visitor must know before an email change: it moves the way into the wallet. */
export const emailChangeNote =
  'This email is how you log in to this wallet and recover it. Once changed, logging in takes a code mailed to the new address: approve only if you asked for this change and the new address is yours.'

/** The longest email (RFC 5321); anything longer is not shown as one. */
const maxEmailLength = 254

/**
 * The frame's own `updateEmail` (params `{ from, to }`, nothing else): the
 * account's email, before and after. Anything else shows raw, with a note.
 */
function decodeEmailChange(input: DecodeInput): Display {
  const { params } = input
  const emails =
    isRecord(params) && Object.keys(params).sort().join() === 'from,to' ? params : undefined
  const isEmail = (value: unknown): value is string =>
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxEmailLength &&
    !unprintable.test(value)
  if (!emails || !isEmail(emails.from) || !isEmail(emails.to))
    return raw('emailChange', "Change this wallet's email", input, [
      notDecodedNote,
      emailChangeNote,
    ])
  const { from, to } = emails
  return {
    kind: 'emailChange',
    title: `Change this wallet's email from ${from} to ${to}`,
    sections: [
      {
        type: 'fields',
        fields: [
          // Monospaced, as addresses are: I and l, 0 and O told apart.
          { label: 'Current email', value: from, mono: true },
          { label: 'New email', value: to, mono: true },
        ],
      },
    ],
    notes: [emailChangeNote],
  }
}

function raw(kind: Kind, title: string, input: DecodeInput, notes: string[]): Display {
  return {
    kind,
    title,
    sections: [
      { type: 'fields', fields: [{ label: 'Method', value: input.method, mono: true }] },
      { type: 'text', title: 'Parameters', text: toJson(input.params), format: 'json' },
    ],
    notes,
  }
}

/** The approval's content for a request: heading, decoded sections and notes. */
export function toDisplay(input: DecodeInput): Display {
  switch (input.method) {
    case 'personal_sign':
      return decodePersonalSign(input)
    case 'eth_signTypedData_v4':
      return decodeTypedData(input)
    case 'eth_sendTransaction':
      return decodeTransaction(input)
    case 'wallet_sendCalls':
      return decodeSendCalls(input)
    case 'solana_signMessage':
      return decodeSolanaMessage(input)
    case 'solana_signTransaction':
    case 'solana_signAllTransactions':
    case 'solana_signAndSendTransaction':
      return decodeSolanaTransaction({ ...input, method: input.method })
    case 'eth_sendUserOperation':
      return decodeUserOperation(input)
    case 'wallet_grantPermissions':
      return raw('permissions', 'Approve permissions', input, [])
    case 'wallet_revokePermissions':
      return raw('permissions', 'Revoke permissions', input, [])
    case 'updateEmail':
      return decodeEmailChange(input)
  }
  // Unreachable for a parsed request; kept so a new method is never shown blank.
  return raw('permissions', 'Approve request', input, [notDecodedNote])
}
