/**
 * Sign-In With X (CAIP-122): the sign-in message and the wire shapes the
 * widget and the API share.
 *
 * A message is EIP-4361 (Sign-In With Ethereum) for `eip155` accounts, made
 * and read with `viem/siwe`, and CAIP-122's generic form for `solana`
 * accounts: the same lines, "…with your Solana account", and the CAIP-2
 * reference of the network on the `Chain ID` line.
 *
 * ```
 * {scheme://}{domain} wants you to sign in with your {Ethereum|Solana} account:
 * {address}
 *
 * {statement}
 *
 * URI: {uri}
 * Version: 1
 * Chain ID: {reference}
 * Nonce: {nonce}
 * Issued At: {RFC 3339 date-time}
 * Expiration Time: …   (optional, then Not Before, Request ID, Resources)
 * ```
 *
 * Parsing is strict: the whole text must follow this grammar line by line
 * (no extra line, no trailing newline), every field is checked, and for EVM
 * viem's own reading of the text must agree with ours, so the API and any
 * host using viem never disagree about what was signed.
 */
import { getAddress, isAddress } from 'viem'
import { createSiweMessage, parseSiweMessage } from 'viem/siwe'
import { caip2Pattern } from './Caip.js'
import { BaseError } from './Errors.js'
import { z } from './zod.js'

/** Longest sign-in message accepted (statement and resources included). */
export const maxMessageLength = 8192
/** Longest signature accepted: an EIP-6492 one carries a factory call, a passkey one its WebAuthn data. */
export const maxSignatureLength = 16_384
/** Most resources one message may list. */
export const maxResources = 32
/** How long a nonce from the API may be used. */
export const nonceTtlSeconds = 10 * 60

/** The namespaces a sign-in message can be written for, and the word each uses for its accounts. */
export const accountNames = { eip155: 'Ethereum', solana: 'Solana' } as const
export type Namespace = keyof typeof accountNames

/** The API's nonces: at least 16 letters and digits (96 random bits or more). */
export const Nonce = z
  .string()
  .check(z.regex(/^[A-Za-z0-9]{16,64}$/, 'must be 16-64 letters or digits'))

/** `POST /siwx/nonce`: a single-use nonce and when it stops being accepted. */
export const SiwxNonce = z.strictObject({ nonce: Nonce, expiresAt: z.iso.datetime() })
export type SiwxNonce = z.infer<typeof SiwxNonce>

/** A signature: 0x-prefixed hex (EVM) or base58 (Solana). */
export const Signature = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(maxSignatureLength),
    z.regex(
      /^(?:0x(?:[0-9a-fA-F]{2})+|[1-9A-HJ-NP-Za-km-z]+)$/,
      'must be 0x-prefixed hex or base58',
    ),
  )

/** The body of `POST /siwx/sessions`: the signed message and its signature. */
export const SiwxSessionRequest = z.strictObject({
  message: z.string().check(z.minLength(1), z.maxLength(maxMessageLength)),
  signature: Signature,
})
export type SiwxSessionRequest = z.infer<typeof SiwxSessionRequest>

/** A session token: 32 random bytes, base64url. */
export const SessionToken = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_-]{43}$/, 'must be a session token (43 base64url characters)'))

const ChainId = z.string().check(
  z.regex(caip2Pattern, 'must be a CAIP-2 chain id such as eip155:1'),
  z.refine(
    (chainId) => Object.hasOwn(accountNames, chainId.split(':')[0] ?? ''),
    'must be an eip155 or solana chain id',
  ),
)

/**
 * What a host's backend learns about a session (`GET /siwx/sessions/check`):
 * who signed in, on which network, for which site, and until when.
 */
export const SiwxSessionCheck = z.strictObject({
  /** The account, as in the message (EVM: EIP-55 checksummed; Solana: base58). */
  address: z.string().check(z.minLength(1), z.maxLength(128)),
  /** CAIP-2 network id, e.g. `eip155:1`. */
  chainId: ChainId,
  /** The message's domain (`host[:port]`): the host the session belongs to. */
  domain: z.string().check(z.minLength(1), z.maxLength(256)),
  uri: z.string().check(z.minLength(1), z.maxLength(2048)),
  issuedAt: z.iso.datetime(),
  /** The message's own expiration time, if it had one. */
  expirationTime: z.nullable(z.iso.datetime()),
  /** When the API stops accepting the session: the expiration time, or sooner. */
  expiresAt: z.iso.datetime(),
})
export type SiwxSessionCheck = z.infer<typeof SiwxSessionCheck>

/**
 * A session as `POST /siwx/sessions` answers it. `token` goes in
 * `Authorization: Bearer …` when the host's backend checks the session; the
 * API stores only its SHA-256.
 */
export const SiwxSession = z.strictObject({
  ...SiwxSessionCheck.shape,
  token: SessionToken,
  message: SiwxSessionRequest.shape.message,
  signature: Signature,
})
export type SiwxSession = z.infer<typeof SiwxSession>

/** A sign-in message that cannot be made, or a text that is not one. */
export class InvalidSiwxMessageError extends BaseError {
  override name = 'InvalidSiwxMessageError'
}

const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/
const Uri = z
  .string()
  .check(z.maxLength(2048), z.regex(/^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]+$/, 'must be a URI'))
const Time = z.date()

/** The fields of a sign-in message. */
const messageShape = {
  /** The scheme of the requesting origin; absent means https. */
  scheme: z.optional(
    z.string().check(z.regex(/^[a-zA-Z][a-zA-Z0-9+.-]{0,31}$/, 'must be a URI scheme')),
  ),
  /** The requesting authority, `host[:port]` (no user info). */
  domain: z
    .string()
    .check(
      z.maxLength(256),
      z.regex(
        /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$/,
        'must be a host name with an optional port',
      ),
    ),
  address: z.string().check(z.minLength(1), z.maxLength(128)),
  /** One line of printable ASCII. */
  statement: z.optional(
    z
      .string()
      .check(
        z.regex(/^[\x20-\x7e]{1,1024}$/, 'must be one line of printable ASCII (at most 1024)'),
      ),
  ),
  uri: Uri,
  version: z.literal('1'),
  /** CAIP-2 network id: `eip155:<decimal>` or `solana:<reference>`. */
  chainId: ChainId,
  /** At least 8 letters or digits (EIP-4361); the API's are 16 or more. */
  nonce: z.string().check(z.regex(/^[A-Za-z0-9]{8,128}$/, 'must be 8-128 letters or digits')),
  issuedAt: Time,
  expirationTime: z.optional(Time),
  notBefore: z.optional(Time),
  requestId: z.optional(
    z
      .string()
      .check(
        z.regex(/^[A-Za-z0-9\-._~%!$&'()*+,;=:@]{1,256}$/, 'must be 1-256 URI path characters'),
      ),
  ),
  resources: z.optional(z.array(Uri).check(z.maxLength(maxResources))),
}

function checkMessage(
  message: { chainId: string; address: string },
  context: z.core.$RefinementCtx,
) {
  const [namespace, reference = ''] = message.chainId.split(':')
  if (namespace === 'eip155') {
    if (!/^[1-9][0-9]{0,15}$/.test(reference) || !Number.isSafeInteger(Number(reference)))
      context.addIssue({
        code: 'custom',
        path: ['chainId'],
        message: 'must be eip155:<decimal chain id>',
      })
    if (!/^0x[0-9a-fA-F]{40}$/.test(message.address) || !isAddress(message.address))
      context.addIssue({
        code: 'custom',
        path: ['address'],
        message: 'must be an EVM address (EIP-55 checksummed when mixed case)',
      })
  }
  if (namespace === 'solana' && !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(message.address))
    context.addIssue({
      code: 'custom',
      path: ['address'],
      message: 'must be a Solana address (32-44 base58 characters)',
    })
}

/** The fields of a sign-in message, as `parse` reads them. */
export const SiwxMessage = z.strictObject(messageShape).check(z.superRefine(checkMessage))
export type SiwxMessage = z.infer<typeof SiwxMessage>

/** What `create` takes: `version` is `'1'` and `issuedAt` now unless given. */
export const CreateParameters = z
  .strictObject({
    ...messageShape,
    version: z._default(messageShape.version, '1'),
    issuedAt: z._default(Time, () => new Date()),
  })
  .check(z.superRefine(checkMessage))
export type CreateParameters = z.input<typeof CreateParameters>

/** The namespace of a CAIP-2 chain id, when it is one a message can be written for. */
export function toNamespace(chainId: string): Namespace | undefined {
  const namespace = chainId.split(':')[0] ?? ''
  return Object.hasOwn(accountNames, namespace) ? (namespace as Namespace) : undefined
}

/**
 * Writes a sign-in message: EIP-4361 (viem's `createSiweMessage`) for
 * `eip155`, CAIP-122's generic form for `solana`. Throws
 * `InvalidSiwxMessageError` naming the field at fault.
 */
export function create(parameters: CreateParameters): string {
  const parsed = CreateParameters.safeParse(parameters)
  if (!parsed.success)
    throw new InvalidSiwxMessageError('Invalid sign-in message fields', {
      details: describe(parsed.error),
    })
  const fields = parsed.data
  const [namespace, reference = ''] = fields.chainId.split(':')
  const text =
    namespace === 'eip155'
      ? createEvm(fields, Number(reference))
      : createGeneric(fields, accountNames.solana, reference)
  // Whatever is written must read back: `parse` is the one judge of the format.
  parse(text)
  return text
}

function createEvm(fields: SiwxMessage, chainId: number): string {
  try {
    return createSiweMessage({
      ...fields,
      address: getAddress(fields.address),
      chainId,
      version: '1',
    })
  } catch (error) {
    throw new InvalidSiwxMessageError('Invalid sign-in message fields', {
      details: error instanceof Error ? error.message.split('\n')[0] : undefined,
      cause: error,
    })
  }
}

/** CAIP-122's generic form, as written for Solana. */
function createGeneric(fields: SiwxMessage, accountName: string, reference: string): string {
  const origin = fields.scheme ? `${fields.scheme}://${fields.domain}` : fields.domain
  const lines = [
    `${origin} wants you to sign in with your ${accountName} account:`,
    fields.address,
    '',
    ...(fields.statement ? [fields.statement, ''] : ['']),
    `URI: ${fields.uri}`,
    `Version: ${fields.version}`,
    `Chain ID: ${reference}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${fields.issuedAt.toISOString()}`,
  ]
  if (fields.expirationTime) lines.push(`Expiration Time: ${fields.expirationTime.toISOString()}`)
  if (fields.notBefore) lines.push(`Not Before: ${fields.notBefore.toISOString()}`)
  if (fields.requestId) lines.push(`Request ID: ${fields.requestId}`)
  if (fields.resources) lines.push('Resources:', ...fields.resources.map((uri) => `- ${uri}`))
  return lines.join('\n')
}

/** The whole message, line by line (CAIP-122 / the EIP-4361 ABNF); each field is checked after. */
const grammar =
  /^(?:(?<scheme>[a-zA-Z][a-zA-Z0-9+.-]*):\/\/)?(?<domain>[^\s/]+) wants you to sign in with your (?<account>[A-Za-z]+) account:\n(?<address>[^\s]+)\n\n(?:(?<statement>[^\n]+)\n)?\nURI: (?<uri>[^\s]+)\nVersion: (?<version>[^\n]*)\nChain ID: (?<chainId>[^\s]+)\nNonce: (?<nonce>[^\s]+)\nIssued At: (?<issuedAt>[^\s]+)(?:\nExpiration Time: (?<expirationTime>[^\s]+))?(?:\nNot Before: (?<notBefore>[^\s]+))?(?:\nRequest ID: (?<requestId>[^\s]+))?(?:\nResources:(?<resources>(?:\n- [^\s]+)*))?$/

/**
 * Reads a sign-in message. The text must follow the grammar exactly and
 * every field must be valid; for EVM, viem's `parseSiweMessage` must read the
 * same fields. Throws `InvalidSiwxMessageError` otherwise.
 */
export function parse(message: string): SiwxMessage {
  if (typeof message !== 'string' || message.length > maxMessageLength)
    throw new InvalidSiwxMessageError(
      `A sign-in message is text of at most ${maxMessageLength} characters`,
    )
  const groups = grammar.exec(message)?.groups
  if (!groups)
    throw new InvalidSiwxMessageError('Not a sign-in message (CAIP-122 / EIP-4361)', {
      details: 'The text does not follow the message format line by line',
    })
  const namespace = (Object.keys(accountNames) as Namespace[]).find(
    (key) => accountNames[key] === groups.account,
  )
  if (!namespace)
    throw new InvalidSiwxMessageError(
      `Unsupported account type '${groups.account}': expected Ethereum or Solana`,
    )
  const times: Record<string, Date | undefined> = {}
  for (const key of ['issuedAt', 'expirationTime', 'notBefore'] as const) {
    const value = groups[key]
    if (value === undefined) continue
    if (!dateTimePattern.test(value) || Number.isNaN(new Date(value).getTime()))
      throw new InvalidSiwxMessageError(
        `Invalid sign-in message: ${key} is not an RFC 3339 date-time`,
      )
    times[key] = new Date(value)
  }
  const parsed = SiwxMessage.safeParse(
    withoutUndefined({
      scheme: groups.scheme,
      domain: groups.domain,
      address: groups.address,
      statement: groups.statement,
      uri: groups.uri,
      version: groups.version,
      chainId: `${namespace}:${groups.chainId}`,
      nonce: groups.nonce,
      issuedAt: times.issuedAt,
      expirationTime: times.expirationTime,
      notBefore: times.notBefore,
      requestId: groups.requestId,
      resources: groups.resources?.split('\n- ').slice(1),
    }),
  )
  if (!parsed.success)
    throw new InvalidSiwxMessageError('Invalid sign-in message', {
      details: describe(parsed.error),
    })
  if (namespace === 'eip155') assertViemAgrees(message, parsed.data)
  return parsed.data
}

/** Whether `message` is a valid sign-in message. */
export function validate(message: string): boolean {
  try {
    parse(message)
    return true
  } catch {
    return false
  }
}

/**
 * The origin a message was written for: its scheme (https when absent, as
 * EIP-4361 assumes) and domain, canonical as a browser writes `event.origin`;
 * `undefined` when they make no http(s) origin.
 */
export function toOrigin(message: Pick<SiwxMessage, 'scheme' | 'domain'>): string | undefined {
  const scheme = (message.scheme ?? 'https').toLowerCase()
  if (scheme !== 'https' && scheme !== 'http') return undefined
  try {
    const url = new URL(`${scheme}://${message.domain}`)
    return url.host === '' ? undefined : url.origin
  } catch {
    return undefined
  }
}

function assertViemAgrees(message: string, fields: SiwxMessage): void {
  const viem = parseSiweMessage(message)
  const time = (date: Date | undefined) => date?.getTime()
  const same =
    viem.address === fields.address &&
    viem.domain === fields.domain &&
    viem.scheme === fields.scheme &&
    viem.statement === fields.statement &&
    viem.uri === fields.uri &&
    viem.version === fields.version &&
    `eip155:${viem.chainId}` === fields.chainId &&
    viem.nonce === fields.nonce &&
    time(viem.issuedAt) === time(fields.issuedAt) &&
    time(viem.expirationTime) === time(fields.expirationTime) &&
    time(viem.notBefore) === time(fields.notBefore) &&
    viem.requestId === fields.requestId &&
    JSON.stringify(viem.resources ?? []) === JSON.stringify(fields.resources ?? [])
  if (!same)
    throw new InvalidSiwxMessageError('Ambiguous sign-in message', {
      details: 'viem reads the message differently',
    })
}

function withoutUndefined<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as Partial<T>
}

function describe(error: z.core.$ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.map(String).join('.') || 'message'}: ${issue.message}`)
    .join('; ')
}
