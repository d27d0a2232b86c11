import { ed25519 } from '@noble/curves/ed25519'
import { invalidCommitmentMessage, preflightCommitments } from '@porthole/protocol/EmbeddedRpc'
import { RpcError, UserRejectedError } from '@porthole/protocol/Errors'
import { base58, base64 } from '@scure/base'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  type Node,
  wallet as rpcWallet,
  scriptedNode,
  shown,
  solanaMainnet,
} from '../../../test/rpcWallet.js'
import type { TestContext } from '../../../test/testContext.js'
import { UpstreamError } from '../../lib/errors.js'
import { handleRpc } from '../../rpc/policy.js'
import type { RequestApproval } from '../session.js'
import { maxTransactionBytes, parseTransaction } from './transaction.js'

const _email = 'ada@example.com'
const solanaDevnet = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

/** A logged-in frame whose approval UI answers `decide`, with its Solana key, over `node`. */
async function wallet(options: { decide?: RequestApproval; node?: Node } = {}) {
  const result = await rpcWallet(options)
  return { ...result, key: base58.decode(result.addresses.solana) }
}

const run = (context: TestContext, method: string, params: unknown, chainId?: string) =>
  handleRpc(
    context,
    { method, params: params as never, ...(chainId === undefined ? {} : { chainId }) },
    { signal: new AbortController().signal },
  )

// ---------------------------------------------------------------------------
// Transactions by hand

function compactU16(value: number): number[] {
  const out: number[] = []
  let rest = value
  for (;;) {
    const byte = rest & 0x7f
    rest >>= 7
    if (rest === 0) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}

const filled = (length: number, byte: number) => new Uint8Array(length).fill(byte)
const randomKey = () => ed25519.getPublicKey(ed25519.utils.randomPrivateKey())

type Instruction = { program: number; accounts: number[]; data: number[] }
type Lookup = { table: Uint8Array; writable: number[]; readonly: number[] }
type MessageSpec = {
  version?: 'legacy' | number
  required: number
  readonlySigned?: number
  readonlyUnsigned?: number
  keys: Uint8Array[]
  instructions?: Instruction[]
  lookups?: Lookup[]
}

function message(spec: MessageSpec): Uint8Array {
  const { version = 'legacy', required, readonlySigned = 0, readonlyUnsigned = 0, keys } = spec
  const instructions = spec.instructions ?? [
    { program: keys.length - 1, accounts: [0, 1], data: [2, 0, 0, 0, 64, 66, 15, 0, 0, 0, 0, 0] },
  ]
  const bytes: number[] = []
  if (version !== 'legacy') bytes.push(0x80 | version)
  bytes.push(required, readonlySigned, readonlyUnsigned, ...compactU16(keys.length))
  for (const key of keys) bytes.push(...key)
  bytes.push(...filled(32, 7)) // recent blockhash
  bytes.push(...compactU16(instructions.length))
  for (const { program, accounts, data } of instructions)
    bytes.push(
      program,
      ...compactU16(accounts.length),
      ...accounts,
      ...compactU16(data.length),
      ...data,
    )
  if (version !== 'legacy') {
    const lookups = spec.lookups ?? []
    bytes.push(...compactU16(lookups.length))
    for (const lookup of lookups)
      bytes.push(
        ...lookup.table,
        ...compactU16(lookup.writable.length),
        ...lookup.writable,
        ...compactU16(lookup.readonly.length),
        ...lookup.readonly,
      )
  }
  return Uint8Array.from(bytes)
}

function transaction(body: Uint8Array, signatures: Uint8Array[]): Uint8Array {
  const bytes = [...compactU16(signatures.length)]
  for (const signature of signatures) bytes.push(...signature)
  bytes.push(...body)
  return Uint8Array.from(bytes)
}

/** A transfer our key pays for and signs alone (legacy), or with a second signer (v0, lookups). */
function transfer(key: Uint8Array, options: { version?: 'legacy' | 0; cosigner?: boolean } = {}) {
  const { version = 'legacy', cosigner = false } = options
  const program = new Uint8Array(32) // the system program
  const keys = cosigner ? [randomKey(), key, randomKey(), program] : [key, randomKey(), program]
  const body = message({
    version,
    required: cosigner ? 2 : 1,
    readonlyUnsigned: 1,
    keys,
    ...(version === 0
      ? { lookups: [{ table: randomKey(), writable: [3], readonly: [0, 5] }] }
      : {}),
  })
  const signatures = cosigner ? [filled(64, 0xaa), new Uint8Array(64)] : [new Uint8Array(64)]
  return { body, bytes: transaction(body, signatures), index: cosigner ? 1 : 0 }
}

/** Checks `signed` is `original` with a valid signature by `key` over `body` in slot `index`. */
function expectSigned(
  signed: string,
  original: Uint8Array,
  body: Uint8Array,
  key: Uint8Array,
  index: number,
) {
  const bytes = base64.decode(signed)
  expect(bytes.length).toBe(original.length)
  const start = 1 + index * 64
  const signature = bytes.slice(start, start + 64)
  expect(ed25519.verify(signature, body, key)).toBe(true)
  // Every other byte, other signatures and the message included, is as given.
  expect([...bytes.slice(0, start), ...bytes.slice(start + 64)]).toEqual([
    ...original.slice(0, start),
    ...original.slice(start + 64),
  ])
}

// ---------------------------------------------------------------------------

describe('solana_signTransaction', () => {
  test.each([
    [
      'a legacy transaction, our key the only signer',
      { version: 'legacy' as const, cosigner: false },
    ],
    ['a legacy transaction with a cosigner', { version: 'legacy' as const, cosigner: true }],
    ['a v0 transaction with an address-table lookup', { version: 0 as const, cosigner: false }],
    ['a v0 transaction with a cosigner', { version: 0 as const, cosigner: true }],
  ])('signs %s in our slot, other slots unchanged', async (_, options) => {
    const { context, key, addresses, approvals } = await wallet()
    const { body, bytes, index } = transfer(key, options)
    const params = { transaction: base64.encode(bytes) }
    const result = (await run(context, 'solana_signTransaction', params)) as { transaction: string }
    expect(Object.keys(result)).toEqual(['transaction'])
    expectSigned(result.transaction, bytes, body, key, index)
    if (options.cosigner)
      expect(base64.decode(result.transaction).slice(1, 65)).toEqual(filled(64, 0xaa))
    expect(approvals).toEqual([
      {
        method: 'solana_signTransaction',
        params,
        chainId: solanaMainnet,
        account: addresses.solana,
        origin: 'https://host.example',
        chainName: 'Solana',
      },
    ])
  })

  test("signs on the request's Solana network", async () => {
    const { context, key, approvals } = await wallet()
    const { bytes } = transfer(key)
    await run(
      context,
      'solana_signTransaction',
      { transaction: base64.encode(bytes) },
      solanaDevnet,
    )
    expect(approvals[0]?.chainId).toBe(solanaDevnet)
  })

  test('overwrites a signature already in our slot', async () => {
    const { context, key } = await wallet()
    const body = message({ required: 1, keys: [key, randomKey()], instructions: [] })
    const bytes = transaction(body, [filled(64, 0x11)])
    const { transaction: signed } = (await run(context, 'solana_signTransaction', {
      transaction: base64.encode(bytes),
    })) as { transaction: string }
    expectSigned(signed, bytes, body, key, 0)
  })
})

describe('solana_signAllTransactions', () => {
  test('one approval for the batch, then each transaction signed in order', async () => {
    const { context, key, requestApproval, readShare } = await wallet()
    const batch = [transfer(key), transfer(key, { version: 0, cosigner: true }), transfer(key)]
    const params = { transactions: batch.map(({ bytes }) => base64.encode(bytes)) }
    const result = (await run(context, 'solana_signAllTransactions', params)) as {
      transactions: string[]
    }
    expect(requestApproval).toHaveBeenCalledTimes(1)
    expect(requestApproval.mock.calls[0]?.[0]).toMatchObject({
      method: 'solana_signAllTransactions',
      params,
    })
    // One key rebuilt for the whole batch.
    expect(readShare).toHaveBeenCalledTimes(1)
    expect(result.transactions).toHaveLength(3)
    batch.forEach(({ body, bytes, index }, position) => {
      expectSigned(result.transactions[position] as string, bytes, body, key, index)
    })
  })

  test('32 transactions is the most one request signs', async () => {
    const { context, key } = await wallet()
    const { bytes } = transfer(key)
    const transactions = Array<string>(32).fill(base64.encode(bytes))
    const result = (await run(context, 'solana_signAllTransactions', { transactions })) as {
      transactions: string[]
    }
    expect(result.transactions).toHaveLength(32)
  })
})

// ---------------------------------------------------------------------------

/** Solana mainnet's genesis hash: its first 32 characters name `solanaMainnet`. */
const mainnetGenesis = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d'
/** The transaction id a node answers for `text`: its first signature, base58. */
const firstSignature = (text: string) => base58.encode(base64.decode(text).slice(1, 65))

/** A node on Solana mainnet that sends what it is given and answers its signature. */
const honestNode = (answers: Record<string, unknown> = {}) =>
  scriptedNode({
    getGenesisHash: mainnetGenesis,
    sendTransaction: ([text]: [string]) => firstSignature(text),
    ...answers,
  })

/** The `sendTransaction` calls `node` got: [transaction, config]. */
const sends = (node: { mock: { calls: [string, unknown][] } }) =>
  node.mock.calls
    .filter(([method]) => method === 'sendTransaction')
    .map(([, params]) => params as [string, unknown])

describe('solana_signAndSendTransaction', () => {
  test.each([
    ['alone', { cosigner: false }],
    ['with a cosigner (the transaction id is the first signature)', { cosigner: true }],
  ])(
    'inv-20 shows the transaction, signs it in our slot and sends that: %s',
    async (_, options) => {
      const { context, key, addresses, approvals, node } = await wallet({ node: honestNode() })
      const { body, bytes, index } = transfer(key, options)
      const params = {
        transaction: base64.encode(bytes),
        sendOptions: { preflightCommitment: 'confirmed', skipPreflight: false, maxRetries: 3 },
      }
      const result = (await run(context, 'solana_signAndSendTransaction', params)) as {
        signature: string
      }
      expect(approvals).toEqual([
        {
          method: 'solana_signAndSendTransaction',
          params,
          chainId: solanaMainnet,
          account: addresses.solana,
          origin: 'https://host.example',
          chainName: 'Solana',
        },
      ])
      const [sent = ['', undefined]] = sends(node)
      expectSigned(sent[0], bytes, body, key, index)
      expect(sent[1]).toEqual({ ...params.sendOptions, encoding: 'base64' })
      expect(result).toEqual({ signature: firstSignature(sent[0]) })
      // The network is checked before the approval: genesis hash, then the send after it.
      expect(node.mock.calls.map(([method]) => method)).toEqual([
        'getGenesisHash',
        'sendTransaction',
      ])
    },
  )

  test('without sendOptions, sends with base64 encoding alone', async () => {
    const { context, key, node } = await wallet({ node: honestNode() })
    await run(context, 'solana_signAndSendTransaction', {
      transaction: base64.encode(transfer(key).bytes),
    })
    expect(sends(node)[0]?.[1]).toEqual({ encoding: 'base64' })
  })

  test.each(
    preflightCommitments.map(
      (name) =>
        [
          name,
          { recent: 'processed', single: 'confirmed', singleGossip: 'confirmed' }[
            name as 'recent'
          ] ?? (name === 'root' || name === 'max' ? 'finalized' : name),
        ] as const,
    ),
  )('takes the preflight commitment %s, shown and sent as %s', async (commitment, current) => {
    const { context, key, approvals, node } = await wallet({ node: honestNode() })
    await run(context, 'solana_signAndSendTransaction', {
      transaction: base64.encode(transfer(key).bytes),
      sendOptions: { preflightCommitment: commitment, minContextSlot: 7 },
    })
    expect(approvals[0]?.params).toMatchObject({
      sendOptions: { preflightCommitment: current, minContextSlot: 7 },
    })
    expect(sends(node)[0]?.[1]).toEqual({
      preflightCommitment: current,
      minContextSlot: 7,
      encoding: 'base64',
    })
  })

  test.each([
    'Processed',
    'FINALIZED',
    'singlegossip',
    'confirmed ',
    '',
    'maxx',
    'base64',
    'x'.repeat(100_000),
    42,
    null,
    true,
    ['confirmed'],
    { level: 'confirmed' },
  ])(
    'refuses the preflight commitment %j with -32602 and a clear message, before any approval',
    async (commitment) => {
      const { context, key, requestApproval, readShare, node } = await wallet({
        node: honestNode(),
      })
      await expect(
        run(context, 'solana_signAndSendTransaction', {
          transaction: base64.encode(transfer(key).bytes),
          sendOptions: { preflightCommitment: commitment },
        }),
      ).rejects.toMatchObject({ code: -32602, message: invalidCommitmentMessage })
      expect(invalidCommitmentMessage).toBe(
        'The preflight commitment must be one of processed, confirmed, finalized, recent, single, singleGossip, root or max.',
      )
      expect(requestApproval).not.toHaveBeenCalled()
      expect(readShare).not.toHaveBeenCalled()
      expect(node).not.toHaveBeenCalled()
    },
  )

  test.each([
    ['an unknown send option', { commitment: 'confirmed' }],
    ['skipPreflight not a boolean', { skipPreflight: 'yes' }],
    ['negative maxRetries', { maxRetries: -1 }],
    ['fractional maxRetries', { maxRetries: 1.5 }],
    ['too many maxRetries', { maxRetries: 101 }],
    ['a negative minContextSlot', { minContextSlot: -1 }],
    ['an unsafe minContextSlot', { minContextSlot: 2 ** 60 }],
    ['sendOptions not an object', 'confirmed'],
  ])('refuses %s with -32602 before any approval', async (_, sendOptions) => {
    const { context, key, requestApproval, node } = await wallet({ node: honestNode() })
    await expect(
      run(context, 'solana_signAndSendTransaction', {
        transaction: base64.encode(transfer(key).bytes),
        sendOptions,
      }),
    ).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid parameters for solana_signAndSendTransaction.',
    })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(node).not.toHaveBeenCalled()
  })

  test('refuses a batch (-32602): one transaction is signed and sent per request', async () => {
    const { context, key, requestApproval, node } = await wallet({ node: honestNode() })
    const text = base64.encode(transfer(key).bytes)
    await expect(
      run(context, 'solana_signAndSendTransaction', { transactions: [text, text] }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(node).not.toHaveBeenCalled()
  })

  test.each([
    [
      'the proxy refuses a network the project does not offer',
      () => {
        throw new UpstreamError(
          -32602,
          `The project 'porthole-dev' does not offer ${solanaMainnet}`,
        )
      },
      { code: -32602, message: /does not offer/ },
    ],
    [
      "the proxy's node is another network",
      'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
      { code: -32603, message: 'The network answered an unexpected genesis hash' },
    ],
    ['the proxy answers no genesis hash', null, { code: -32603 }],
  ])('refuses before any approval when %s', async (_, genesis, error) => {
    const { context, key, requestApproval, readShare, node } = await wallet({
      node: honestNode({ getGenesisHash: genesis }),
    })
    await expect(
      run(context, 'solana_signAndSendTransaction', {
        transaction: base64.encode(transfer(key).bytes),
      }),
    ).rejects.toMatchObject({
      code: error.code,
      ...('message' in error ? { message: error.message } : {}),
    })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(readShare).not.toHaveBeenCalled()
    expect(sends(node)).toEqual([])
  })

  test.each([
    ['another signature', () => base58.encode(filled(64, 0x42))],
    ['a hex hash', () => `0x${'ab'.repeat(32)}`],
    ['nothing', () => null],
    ['an object', () => ({ signature: 'x' })],
    [
      'the signature of the transaction before signing',
      // One character changed, whatever it was (a fixed one would match 1 time in 58).
      ([text]: [string]) =>
        firstSignature(text).replace(/./, (first) => (first === '2' ? '3' : '2')),
    ],
  ])(
    "refuses the proxy's answer when it is %s, not this transaction's signature (-32603)",
    async (_, answer) => {
      const { context, key, node } = await wallet({
        node: honestNode({ sendTransaction: answer }),
      })
      await expect(
        run(context, 'solana_signAndSendTransaction', {
          transaction: base64.encode(transfer(key).bytes),
        }),
      ).rejects.toMatchObject({
        code: -32603,
        message: 'The network answered an unexpected transaction signature',
      })
      expect(sends(node)).toHaveLength(1)
    },
  )

  test("relays the node's refusal of the transaction with its code", async () => {
    const { context, key } = await wallet({
      node: honestNode({
        sendTransaction: () => {
          throw new UpstreamError(-32002, 'The RPC endpoint answered with an error')
        },
      }),
    })
    await expect(
      run(context, 'solana_signAndSendTransaction', {
        transaction: base64.encode(transfer(key).bytes),
      }),
    ).rejects.toMatchObject({ code: -32002 })
  })

  test('rejected by the user (4001): nothing is signed or sent', async () => {
    const { context, key, requestApproval, readShare, node } = await wallet({
      decide: () => Promise.reject(new UserRejectedError()),
      node: honestNode(),
    })
    await expect(
      run(context, 'solana_signAndSendTransaction', {
        transaction: base64.encode(transfer(key).bytes),
      }),
    ).rejects.toMatchObject({ code: 4001 })
    expect(requestApproval).toHaveBeenCalledTimes(1)
    expect(readShare).not.toHaveBeenCalled()
    expect(sends(node)).toEqual([])
  })

  test('inv-17 given up on the moment it is approved: signed, but not sent (4001)', async () => {
    const { context, key, node } = await wallet({ node: honestNode() })
    const controller = new AbortController()
    await expect(
      handleRpc(
        context,
        {
          method: 'solana_signAndSendTransaction',
          params: { transaction: base64.encode(transfer(key).bytes) },
        },
        { signal: controller.signal, onApproved: () => controller.abort() },
      ),
    ).rejects.toMatchObject({ code: 4001 })
    expect(sends(node)).toEqual([])
  })
})

describe('inv-06 solana transactions', () => {
  test.each(['solana_signTransaction', 'solana_signAllTransactions'])(
    '%s rejected by the user (4001) signs nothing',
    async (method) => {
      const { context, key, requestApproval, readShare } = await wallet({
        decide: () => Promise.reject(new UserRejectedError()),
      })
      const text = base64.encode(transfer(key).bytes)
      const params =
        method === 'solana_signTransaction' ? { transaction: text } : { transactions: [text] }
      await expect(run(context, method, params)).rejects.toMatchObject({ code: 4001 })
      expect(requestApproval).toHaveBeenCalledTimes(1)
      expect(readShare).not.toHaveBeenCalled()
    },
  )

  const valid = (key: Uint8Array) => base64.encode(transfer(key).bytes)
  const one = (text: string) => ({ transaction: text })
  const cases: [string, number, (key: Uint8Array) => unknown, string?][] = [
    ['no params', -32602, () => undefined],
    ['params as a list', -32602, (key) => [valid(key)]],
    ['a transaction that is not a string', -32602, () => one(42 as never)],
    ['an empty transaction', -32602, () => one('')],
    ['bad base64', -32602, () => one('not base64!')],
    [
      'base64 without its padding',
      -32602,
      () => one(base64.encode(filled(301, 1)).replace(/=+$/, '')),
    ],
    ['base58 instead of base64', -32602, (key) => one(base58.encode(transfer(key).bytes))],
    ['base64url', -32602, () => one(base64.encode(filled(300, 0xfb)).replaceAll('+', '-'))],
    [
      'a truncated transaction',
      -32602,
      (key) => one(base64.encode(transfer(key).bytes.slice(0, -1))),
    ],
    [
      'bytes after the message',
      -32602,
      (key) => one(base64.encode(Uint8Array.from([...transfer(key).bytes, 0]))),
    ],
    [
      'fewer signatures than required signers',
      -32602,
      (key) => {
        const body = message({ required: 2, keys: [key, randomKey(), randomKey()] })
        return one(base64.encode(transaction(body, [new Uint8Array(64)])))
      },
    ],
    [
      'more signatures than required signers',
      -32602,
      (key) => {
        const body = message({ required: 1, keys: [key, randomKey(), randomKey()] })
        return one(base64.encode(transaction(body, [new Uint8Array(64), new Uint8Array(64)])))
      },
    ],
    [
      'no required signer',
      -32602,
      (key) =>
        one(base64.encode(transaction(message({ required: 0, keys: [key, randomKey()] }), []))),
    ],
    [
      'a read-only fee payer',
      -32602,
      (key) => {
        const body = message({ required: 1, readonlySigned: 1, keys: [key, randomKey()] })
        return one(base64.encode(transaction(body, [new Uint8Array(64)])))
      },
    ],
    [
      'more signers than keys',
      -32602,
      (key) => {
        const body = message({ required: 3, keys: [key, randomKey()], instructions: [] })
        return one(
          base64.encode(
            transaction(
              body,
              [1, 2, 3].map(() => new Uint8Array(64)),
            ),
          ),
        )
      },
    ],
    [
      'our key listed twice',
      -32602,
      (key) => {
        const body = message({ required: 1, keys: [key, key, randomKey()] })
        return one(base64.encode(transaction(body, [new Uint8Array(64)])))
      },
    ],
    [
      'a length not in its shortest form',
      -32602,
      (key) => one(base64.encode(Uint8Array.from([0x81, 0x00, ...transfer(key).bytes.slice(1)]))),
    ],
    [
      `more than ${maxTransactionBytes} bytes`,
      -32602,
      (key) => {
        const body = message({
          required: 1,
          keys: [key, randomKey()],
          instructions: [{ program: 1, accounts: [0], data: Array(1200).fill(1) }],
        })
        const bytes = transaction(body, [new Uint8Array(64)])
        expect(bytes.length).toBeGreaterThan(maxTransactionBytes)
        return one(base64.encode(bytes))
      },
    ],
    [
      'an unknown version (1)',
      -32602,
      (key) => {
        const body = message({ version: 1, required: 1, keys: [key, randomKey()] })
        return one(base64.encode(transaction(body, [new Uint8Array(64)])))
      },
    ],
    [
      'an unknown version (127)',
      -32602,
      (key) => {
        const body = message({ version: 127, required: 1, keys: [key, randomKey()] })
        return one(base64.encode(transaction(body, [new Uint8Array(64)])))
      },
    ],
    ['an unknown key', -32602, (key) => ({ transaction: valid(key), pubkey: base58.encode(key) })],
    [
      'a __proto__ key',
      -32602,
      (key) => JSON.parse(`{"__proto__":{"x":1},"transaction":"${valid(key)}"}`),
    ],
    ['a Solana transaction on an EVM network', -32602, (key) => one(valid(key)), 'eip155:1'],
    [
      'a transaction our key does not appear in',
      4100,
      () => one(base64.encode(transfer(randomKey()).bytes)),
    ],
    [
      'a transaction where our key is an account but not a signer',
      4100,
      (key) => {
        const body = message({ required: 1, keys: [randomKey(), key, new Uint8Array(32)] })
        return one(base64.encode(transaction(body, [new Uint8Array(64)])))
      },
    ],
  ]

  test.each(
    ['solana_signTransaction', 'solana_signAndSendTransaction'].flatMap((method) =>
      cases.map(([name, code, params, chainId]) => [method, name, code, params, chainId] as const),
    ),
  )('%s with %s is refused (%i) before any approval', async (method, _, code, params, chainId) => {
    const { context, key, requestApproval, readShare, node } = await wallet()
    await expect(run(context, method, params(key), chainId)).rejects.toMatchObject({
      code,
    })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(readShare).not.toHaveBeenCalled()
    expect(node).not.toHaveBeenCalled()
  })

  const batchCases: [string, number, (key: Uint8Array) => unknown][] = [
    ['no transactions', -32602, () => ({ transactions: [] })],
    ['33 transactions', -32602, (key) => ({ transactions: Array(33).fill(valid(key)) })],
    ['transactions not a list', -32602, (key) => ({ transactions: valid(key) })],
    ['the single-transaction params', -32602, (key) => ({ transaction: valid(key) })],
    ['an unknown key', -32602, (key) => ({ transactions: [valid(key)], atomic: true })],
    [
      'one bad transaction among good ones',
      -32602,
      (key) => ({ transactions: [valid(key), 'AQID', valid(key)] }),
    ],
    [
      'one transaction for another account',
      4100,
      (key) => ({ transactions: [valid(key), base64.encode(transfer(randomKey()).bytes)] }),
    ],
  ]

  test.each(batchCases)(
    'solana_signAllTransactions with %s is refused (%i) before any approval',
    async (_, code, params) => {
      const { context, key, requestApproval, readShare } = await wallet()
      await expect(run(context, 'solana_signAllTransactions', params(key))).rejects.toMatchObject({
        code,
      })
      expect(requestApproval).not.toHaveBeenCalled()
      expect(readShare).not.toHaveBeenCalled()
    },
  )

  test('every strict prefix of a valid transaction is refused (-32602)', () => {
    const key = randomKey()
    for (const options of [
      { version: 'legacy' as const },
      { version: 0 as const, cosigner: true },
    ]) {
      const { bytes } = transfer(key, options)
      expect(parseTransaction(bytes, key).signerIndex).toBe(options.version === 0 ? 1 : 0)
      for (let length = 0; length < bytes.length; length++)
        expect(() => parseTransaction(bytes.slice(0, length), key)).toThrow(
          expect.objectContaining({ code: -32602 }),
        )
    }
  })
})

// ---------------------------------------------------------------------------

/** Whether `error` is a refusal the parser may give: -32602 or 4100, never a crash. */
function isRefusal(error: unknown): boolean {
  return error instanceof RpcError && (error.code === -32602 || error.code === 4100)
}

/** Whether the wallet refuses `method` with `params` as `isRefusal` allows (it neither answers nor crashes). */
async function refuses(context: TestContext, method: string, params: unknown): Promise<boolean> {
  const error = await run(context, method, params).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  return isRefusal(error)
}

describe('inv-18 solana transactions', () => {
  test('random bytes never crash the parser', () => {
    const key = randomKey()
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: maxTransactionBytes + 64 }), (bytes) => {
        try {
          parseTransaction(bytes, key)
        } catch (error) {
          return isRefusal(error)
        }
        return true
      }),
      { numRuns: 2000 },
    )
  })

  test('random bytes, and valid transactions with random bytes changed, never reach approval', async () => {
    const { context, requestApproval, readShare } = await wallet()
    const mutated = fc
      .tuple(
        fc.constantFrom<'legacy' | 0>('legacy', 0),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
      )
      .map(([version, edits]) => {
        // Another account's transaction: even when an edit leaves it well formed, it is not ours.
        const { bytes } = transfer(randomKey(), { version })
        for (const [position, byte] of edits) bytes[position % bytes.length] = byte
        return bytes
      })
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.uint8Array({ maxLength: maxTransactionBytes + 64 }), mutated),
        fc.boolean(),
        async (bytes, all) => {
          const text = base64.encode(bytes)
          const params = all ? { transactions: [text] } : { transaction: text }
          const method = all ? 'solana_signAllTransactions' : 'solana_signTransaction'
          return refuses(context, method, params)
        },
      ),
      { numRuns: 300 },
    )
    expect(requestApproval).not.toHaveBeenCalled()
    expect(readShare).not.toHaveBeenCalled()
  })

  test('any params at all never crash and never reach approval', async () => {
    const { context, requestApproval, readShare } = await wallet()
    await fc.assert(
      fc.asyncProperty(fc.anything(), fc.boolean(), async (params, all) => {
        const method = all ? 'solana_signAllTransactions' : 'solana_signTransaction'
        return refuses(context, method, params)
      }),
      { numRuns: 300 },
    )
    expect(requestApproval).not.toHaveBeenCalled()
    expect(readShare).not.toHaveBeenCalled()
  })
})

// ---------------------------------------------------------------------------
// What is shown is what is signed (SECURITY.md 20)

const u64 = (value: bigint) => {
  const bytes: number[] = []
  for (let index = 0n; index < 8n; index++) bytes.push(Number((value >> (8n * index)) & 0xffn))
  return bytes
}

const systemProgram = new Uint8Array(32)
const tokenProgram = base58.decode('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

describe('inv-20 solana_signMessage', () => {
  test('solana_signMessage signs the base58 message with the Solana key', async () => {
    const { context, addresses, approvals } = await wallet()
    const message = new TextEncoder().encode('Sign in to host.example')
    const { signature } = (await run(context, 'solana_signMessage', {
      message: base58.encode(message),
      pubkey: addresses.solana,
    })) as { signature: string }
    expect(ed25519.verify(base58.decode(signature), message, base58.decode(addresses.solana))).toBe(
      true,
    )
    expect(approvals[0]).toMatchObject({ chainId: solanaMainnet, account: addresses.solana })
  })

  test.each<[string, (key: Uint8Array) => Uint8Array]>([
    ['a legacy transaction message', (key) => transfer(key).body],
    ['a v0 transaction message with a lookup table', (key) => transfer(key, { version: 0 }).body],
    ['a transaction message with a cosigner', (key) => transfer(key, { cosigner: true }).body],
    ['a whole serialized transaction', (key) => transfer(key).bytes],
    [
      'a transaction message with no instructions',
      (key) => message({ required: 1, keys: [key], instructions: [] }),
    ],
  ])('a message that is %s is refused (-32602) before any approval', async (_, bytes) => {
    const { context, key, addresses, requestApproval, readShare } = await wallet()
    const error = await run(context, 'solana_signMessage', {
      message: base58.encode(bytes(key)),
      pubkey: addresses.solana,
    }).catch((error: unknown) => error)
    expect(error).toMatchObject({ code: -32602, message: expect.stringMatching(/transaction/) })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(readShare).not.toHaveBeenCalled()
  })

  test.each<[string, () => Uint8Array]>([
    ['text', () => new TextEncoder().encode('Hello from host.example')],
    ['random bytes', () => crypto.getRandomValues(new Uint8Array(96))],
    // A transaction message's prefix, with what follows cut off: not a transaction.
    ['a cut transaction message', () => transfer(randomKey()).body.slice(0, -3)],
  ])('a message of %s is shown and signed', async (_, bytes) => {
    const { context, key, addresses } = await wallet()
    const text = bytes()
    const { signature } = (await run(context, 'solana_signMessage', {
      message: base58.encode(text),
      pubkey: addresses.solana,
    })) as { signature: string }
    expect(ed25519.verify(base58.decode(signature), text, key)).toBe(true)
  })

  test('an unknown key in its params is refused (-32602) before any approval', async () => {
    const { context, addresses, requestApproval } = await wallet()
    await expect(
      run(context, 'solana_signMessage', {
        message: base58.encode(new TextEncoder().encode('hi')),
        pubkey: addresses.solana,
        display: 'hex',
      }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  const siws = (address: string, domain: string, uri: string) =>
    [
      `${domain} wants you to sign in with your Solana account:`,
      address,
      '',
      '',
      `URI: ${uri}`,
      'Version: 1',
      'Chain ID: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      'Nonce: abcdefgh12345678',
      'Issued At: 2025-01-01T00:00:00.000Z',
    ].join('\n')

  test('a sign-in message (CAIP-122) for another domain is refused (-32602) before any approval', async () => {
    const { context, addresses, requestApproval } = await wallet()
    const text = siws(addresses.solana, 'bank.example', 'https://bank.example')
    await expect(
      run(context, 'solana_signMessage', {
        message: base58.encode(new TextEncoder().encode(text)),
        pubkey: addresses.solana,
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/sign-in/i) })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  test('a sign-in message (CAIP-122) for the requesting origin is shown and signed', async () => {
    const { context, key, addresses } = await wallet()
    const text = new TextEncoder().encode(
      siws(addresses.solana, 'host.example', 'https://host.example'),
    )
    const { signature } = (await run(context, 'solana_signMessage', {
      message: base58.encode(text),
      pubkey: addresses.solana,
    })) as { signature: string }
    expect(ed25519.verify(base58.decode(signature), text, key)).toBe(true)
  })
})

describe('inv-20 solana transactions shown decoded', () => {
  test('the fee payer, SOL and SPL transfers with amounts, program ids and unknown instructions are shown', async () => {
    const { context, key, addresses, approvals } = await wallet()
    const recipient = randomKey()
    const source = randomKey()
    const destination = randomKey()
    const mint = randomKey()
    const unknownProgram = randomKey()
    const body = message({
      required: 1,
      readonlyUnsigned: 4,
      keys: [
        key,
        recipient,
        source,
        destination,
        mint,
        systemProgram,
        tokenProgram,
        unknownProgram,
      ],
      instructions: [
        // System program: transfer 0.0015 SOL.
        { program: 5, accounts: [0, 1], data: [2, 0, 0, 0, ...u64(1_500_000n)] },
        // SPL token: transferChecked 2.5 (6 decimals).
        { program: 6, accounts: [2, 4, 3, 0], data: [12, ...u64(2_500_000n), 6] },
        // SPL token: transfer 7 raw units.
        { program: 6, accounts: [2, 3, 0], data: [3, ...u64(7n)] },
        { program: 7, accounts: [0], data: [1, 2, 3] },
      ],
    })
    const bytes = transaction(body, [new Uint8Array(64)])
    await run(context, 'solana_signTransaction', { transaction: base64.encode(bytes) })
    const text = shown(approvals[0])
    for (const line of [
      `Fee payer: ${addresses.solana}`,
      'Action: Transfer SOL',
      `To: ${base58.encode(recipient)}`,
      'Amount: 0.0015 SOL',
      'Program: 11111111111111111111111111111111',
      'Action: Transfer tokens',
      `Mint: ${base58.encode(mint)}`,
      'Token amount: 2.5',
      `Destination account: ${base58.encode(destination)}`,
      'Token amount: 7 (raw units: this instruction does not give the decimals)',
      'Program: TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      'Action: Unknown instruction',
      `Program: ${base58.encode(unknownProgram)}`,
    ])
      expect(text).toContain(line)
    expect(text).not.toContain('not decoded')
  })

  test('solana_signAllTransactions shows each transaction decoded', async () => {
    const { context, key, approvals } = await wallet()
    const batch = [transfer(key), transfer(key, { version: 0, cosigner: true })]
    await run(context, 'solana_signAllTransactions', {
      transactions: batch.map(({ bytes }) => base64.encode(bytes)),
    })
    const text = shown(approvals[0])
    expect(text).toContain('Transaction 1 of 2')
    expect(text).toContain('Transaction 2 of 2')
    // transfer(): 1 000 000 lamports from the first key.
    expect(text.match(/Amount: 0\.001 SOL/g)).toHaveLength(2)
  })
})
