import { RpcError } from '@porthole/protocol/Errors'
import { describe, expect, test, vi } from 'vitest'
import { ApiError } from '../../lib/api.js'
import { createEvmClient, type Rpc } from './client.js'
import { type Draft, type Fees, fillFees, fillTransaction, toDraft } from './transaction.js'

const account = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const to = '0x000000000000000000000000000000000000dEaD'

type Answers = Record<string, unknown>

/** A scripted node: each method's answer (an error is thrown), every call recorded. */
function node(answers: Answers) {
  return vi.fn<Rpc>(async (method) => {
    if (!Object.hasOwn(answers, method)) throw new Error(`unexpected ${method}`)
    const answer = answers[method]
    if (answer instanceof Error) throw answer
    return answer
  })
}

const eip1559Node: Answers = {
  eth_getTransactionCount: '0x7',
  eth_estimateGas: '0x5208',
  eth_maxPriorityFeePerGas: '0x3b9aca00',
  eth_getBlockByNumber: { number: '0x10', baseFeePerGas: '0x64' },
  eth_gasPrice: '0x77359400',
}

/** Fills `draft` (fees first, as the frame does) over `rpc`. */
async function fill(rpc: Rpc, draft: Draft = { to, value: 1n }) {
  const client = createEvmClient(rpc)
  const fees = await fillFees(client, draft.fees)
  return fillTransaction(client, draft, { account, chain: 8453, fees })
}

describe('fillFees', () => {
  test.each<[string, Fees | undefined, Answers, object]>([
    [
      'EIP-1559 by default: twice the base fee plus the priority fee',
      undefined,
      eip1559Node,
      { type: 'eip1559', maxFeePerGas: 1_000_000_200n, maxPriorityFeePerGas: 1_000_000_000n },
    ],
    [
      'a maximum fee below the node’s priority fee caps it',
      { type: 'eip1559', maxFeePerGas: 5n },
      eip1559Node,
      { type: 'eip1559', maxFeePerGas: 5n, maxPriorityFeePerGas: 5n },
    ],
    [
      'both fees given: the node is not asked',
      { type: 'eip1559', maxFeePerGas: 9n, maxPriorityFeePerGas: 2n },
      {},
      { type: 'eip1559', maxFeePerGas: 9n, maxPriorityFeePerGas: 2n },
    ],
    [
      'legacy asked for: the node’s gas price',
      { type: 'legacy' },
      eip1559Node,
      { type: 'legacy', gasPrice: 2_000_000_000n },
    ],
    [
      'a block without a base fee: legacy',
      undefined,
      { ...eip1559Node, eth_getBlockByNumber: { number: '0x10' } },
      { type: 'legacy', gasPrice: 2_000_000_000n },
    ],
    [
      'no block at all: legacy',
      undefined,
      { ...eip1559Node, eth_getBlockByNumber: null },
      { type: 'legacy', gasPrice: 2_000_000_000n },
    ],
    [
      'a base fee that is not a quantity: legacy',
      undefined,
      { ...eip1559Node, eth_getBlockByNumber: { baseFeePerGas: '0xzz' } },
      { type: 'legacy', gasPrice: 2_000_000_000n },
    ],
  ])('%s', async (_, fees, answers, expected) => {
    await expect(fillFees(createEvmClient(node(answers)), fees)).resolves.toEqual(expected)
  })

  test('EIP-1559 asked for on a network without a base fee is refused', async () => {
    const rpc = node({ ...eip1559Node, eth_getBlockByNumber: { number: '0x10' } })
    await expect(fillFees(createEvmClient(rpc), { type: 'eip1559' })).rejects.toMatchObject({
      code: -32603,
      message: 'This network does not take EIP-1559 transactions',
    })
  })

  test('inv-20 a base fee that would take the maximum fee past 2²⁵⁶ − 1 is refused before any approval', async () => {
    const rpc = node({
      ...eip1559Node,
      eth_getBlockByNumber: { number: '0x10', baseFeePerGas: `0x${'f'.repeat(64)}` },
    })
    await expect(fillFees(createEvmClient(rpc), undefined)).rejects.toMatchObject({
      code: -32603,
      message: 'The network answered an unexpected base fee',
    })
  })

  test('asks the node what it asked before viem, each once', async () => {
    const rpc = node(eip1559Node)
    await fillFees(createEvmClient(rpc), undefined)
    expect(rpc.mock.calls.sort()).toEqual([
      ['eth_getBlockByNumber', ['latest', false]],
      ['eth_maxPriorityFeePerGas', []],
    ])
  })
})

describe('fillTransaction', () => {
  test('fills the nonce, gas and fees, asking the node with the params it always sent', async () => {
    const rpc = node(eip1559Node)
    await expect(fill(rpc, { to, value: 10n, data: '0xabcd' })).resolves.toEqual({
      type: '0x2',
      chainId: '0x2105',
      from: account,
      to,
      value: '0xa',
      data: '0xabcd',
      nonce: '0x7',
      gas: '0x5208',
      maxFeePerGas: '0x3b9acac8',
      maxPriorityFeePerGas: '0x3b9aca00',
    })
    expect(rpc.mock.calls.filter(([method]) => method !== 'eth_getBlockByNumber').sort()).toEqual([
      ['eth_estimateGas', [{ from: account, to, value: '0xa', data: '0xabcd' }]],
      ['eth_getTransactionCount', [account, 'pending']],
      ['eth_maxPriorityFeePerGas', []],
    ])
  })

  test('a deployment is estimated without `to`; a given nonce and gas are not asked for', async () => {
    const rpc = node(eip1559Node)
    const filled = await fill(rpc, { data: '0x00', nonce: 3n })
    expect(filled).toMatchObject({ nonce: '0x3', value: '0x0', data: '0x00' })
    expect(filled).not.toHaveProperty('to')
    expect(rpc.mock.calls.find(([method]) => method === 'eth_estimateGas')?.[1]).toEqual([
      { from: account, value: '0x0', data: '0x00' },
    ])
    expect(rpc.mock.calls.map(([method]) => method)).not.toContain('eth_getTransactionCount')
    await fill(rpc, { to, gas: 21_000n })
    expect(rpc.mock.calls.filter(([method]) => method === 'eth_estimateGas')).toHaveLength(1)
  })

  test.each([
    ['eth_getTransactionCount', '0x', 'nonce'],
    ['eth_getTransactionCount', '0x20000000000000', 'nonce'],
    ['eth_getTransactionCount', 7, 'nonce'],
    ['eth_estimateGas', null, 'gas estimate'],
    ['eth_estimateGas', '21000', 'gas estimate'],
    ['eth_maxPriorityFeePerGas', { fee: 1 }, 'priority fee'],
  ])(
    "%s answering %j is -32603 'The network answered an unexpected %s'",
    async (method, answer, what) => {
      const rpc = node({ ...eip1559Node, [method]: answer })
      await expect(fill(rpc)).rejects.toMatchObject({
        code: -32603,
        message: `The network answered an unexpected ${what}`,
      })
    },
  )

  test("a legacy network's gas price that is not a quantity is -32603", async () => {
    const rpc = node({ ...eip1559Node, eth_getBlockByNumber: {}, eth_gasPrice: '0x' })
    await expect(fill(rpc)).rejects.toMatchObject({
      code: -32603,
      message: 'The network answered an unexpected gas price',
    })
  })

  test.each([
    [
      'an API that cannot be reached',
      new ApiError(0, 'unreachable', 'The server cannot be reached'),
    ],
    ['a rate limit', new RpcError(-32005, 'Too many requests, please try again later')],
    ['a node error', new RpcError(3, 'execution reverted', '0x08c379a0')],
    ['a refusal by the user', new RpcError(4001, 'User rejected the request.')],
  ])('%s fails the fill with that very error, asked once, never retried', async (_, error) => {
    for (const method of ['eth_getTransactionCount', 'eth_estimateGas', 'eth_getBlockByNumber']) {
      const rpc = node({ ...eip1559Node, [method]: error })
      await expect(fill(rpc)).rejects.toBe(error)
      expect(rpc.mock.calls.filter(([name]) => name === method)).toHaveLength(1)
    }
  })
})

describe('toDraft', () => {
  test('folds `input` and `gasLimit` into `data` and `gas`', () => {
    expect(
      toDraft([{ from: account, to, input: '0xAB', gasLimit: '0x5208' }], { account, chain: 1 }),
    ).toEqual({ to, data: '0xab', gas: 21_000n })
  })
})
