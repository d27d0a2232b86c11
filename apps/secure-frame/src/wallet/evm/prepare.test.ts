import { createAnvilClients, type LocalAnvil, startAnvil } from '@porthole/dev-stack/anvil'
import { deployTestToken, testTokenAbi } from '@porthole/dev-stack/contracts'
import { RpcError, UserRejectedError } from '@porthole/protocol/Errors'
import fc from 'fast-check'
import {
  encodeFunctionData,
  erc20Abi,
  type Hex,
  keccak256,
  maxUint256,
  parseTransaction,
  recoverTransactionAddress,
  stringToHex,
  verifyMessage,
  verifyTypedData,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { run, scriptedNode, shown, typedData, wallet } from '../../../test/rpcWallet.js'
import { loginWithEmail, type TestContext } from '../../../test/testContext.js'
import { connectEmail } from '../../handlers/connectEmail.js'
import { connectOtp } from '../../handlers/connectOtp.js'
import { handleRpc } from '../../rpc/policy.js'
import type { ApprovalRequest, RequestApproval } from '../session.js'

/** personal_sign of `message` by `account` answers the account's signature of `text`. */
async function expectPersonalSign(
  context: Parameters<typeof run>[0],
  account: string,
  message: string,
  text: string,
): Promise<void> {
  const signature = (await run(context, {
    method: 'personal_sign',
    params: [message, account],
  })) as Hex
  await expect(verifyMessage({ address: account as Hex, message: text, signature })).resolves.toBe(
    true,
  )
}

describe('signing', () => {
  test('personal_sign signs the raw bytes with the EVM account', async () => {
    const { context, addresses } = await wallet()
    await expectPersonalSign(context, addresses.eip155, '0x68656c6c6f', 'hello')
  })

  test('personal_sign also signs a plain text message', async () => {
    const { context, addresses } = await wallet()
    await expectPersonalSign(context, addresses.eip155, 'hello', 'hello')
  })

  test('signing works after a reload (the auth share is fetched again)', async () => {
    const { context, addresses } = await wallet()
    context.memory.unlocked = undefined
    await expectPersonalSign(context, addresses.eip155, '0x68656c6c6f', 'hello')
  })

  test('eth_signTypedData_v4 signs the EIP-712 data, given as JSON or as an object', async () => {
    const { context, addresses } = await wallet()
    const data = typedData(addresses.eip155)
    for (const payload of [JSON.stringify(data), data]) {
      const signature = (await run(context, {
        method: 'eth_signTypedData_v4',
        params: [addresses.eip155, payload],
      })) as Hex
      await expect(
        verifyTypedData({ ...data, address: addresses.eip155 as Hex, signature } as never),
      ).resolves.toBe(true)
    }
  })

  test('eth_signTypedData_v4 for another chain is refused before any approval', async () => {
    const { context, addresses, requestApproval } = await wallet()
    const data = { ...typedData(addresses.eip155), domain: { name: 'Porthole', chainId: 137 } }
    await expect(
      run(context, { method: 'eth_signTypedData_v4', params: [addresses.eip155, data] }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  test('eth_sendTransaction fills nonce, gas and fees through the proxy, signs EIP-1559 and sends it', async () => {
    let raw: Hex | undefined
    const { context, addresses, node } = await wallet({
      node: scriptedNode({
        eth_getTransactionCount: '0x5',
        eth_estimateGas: '0x5208',
        eth_maxPriorityFeePerGas: '0x3b9aca00',
        eth_getBlockByNumber: { number: '0x10', baseFeePerGas: '0x64' },
        eth_sendRawTransaction: (params: unknown) => {
          raw = (params as [Hex])[0]
          return keccak256(raw)
        },
      }),
    })
    const to = '0x000000000000000000000000000000000000dEaD'
    const hash = await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to, value: '0xde0b6b3a7640000', data: '0x' }],
      chainId: 'eip155:8453',
    })
    if (!raw) throw new Error('nothing sent')
    expect(hash).toBe(keccak256(raw))
    expect(parseTransaction(raw)).toMatchObject({
      type: 'eip1559',
      chainId: 8453,
      nonce: 5,
      gas: 21000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 1_000_000_200n,
      to: to.toLowerCase(),
      value: 10n ** 18n,
    })
    await expect(recoverTransactionAddress({ serializedTransaction: raw as never })).resolves.toBe(
      addresses.eip155,
    )
    expect(node.mock.calls.find(([method]) => method === 'eth_estimateGas')?.[1]).toEqual([
      { from: addresses.eip155, to, value: '0xde0b6b3a7640000', data: '0x' },
    ])
  })
})

// ---------------------------------------------------------------------------
// EIP-5792 on a real node

let anvil: LocalAnvil
const anvilChain = 'eip155:31337'

beforeAll(async () => {
  anvil = await startAnvil()
}, 60_000)
afterAll(async () => {
  await anvil?.stop()
})

/** Calls anvil itself (not through the frame): funding, mining, reading state. */
async function anvilRpc(method: string, params: unknown = []): Promise<unknown> {
  const response = await fetch(anvil.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(body.error.message)
  return body.result
}

/** A logged-in frame over the anvil node (its API's RPC proxy forwards there), with 100 ETH. */
async function anvilWallet(options: { decide?: RequestApproval } = {}) {
  const result = await wallet({ ...options, node: anvilRpc })
  await anvilRpc('anvil_setBalance', [result.addresses.eip155, '0x56bc75e2d63100000'])
  return result
}

const newAddress = () => privateKeyToAccount(generatePrivateKey()).address
// 'pending': what the node has accepted, mined or not (anvil may answer a send
// before its automine has run, so 'latest' could lag behind a sent transaction).
const balanceOf = async (address: string) =>
  BigInt((await anvilRpc('eth_getBalance', [address, 'pending'])) as string)
const nonceOf = async (address: string) =>
  Number((await anvilRpc('eth_getTransactionCount', [address, 'pending'])) as string)

/** A batch of two transfers (1 and 2 wei) from `from` to `to`. */
function transfers(from: string, to: readonly [string, string], extra: object = {}) {
  return {
    version: '2.0.0',
    chainId: '0x7a69',
    from,
    atomicRequired: false,
    calls: [
      { to: to[0], value: '0x1' },
      { to: to[1], value: '0x2', data: '0x' },
    ],
    ...extra,
  }
}

const sendCalls = (context: TestContext, params: unknown[]) =>
  run(context, { method: 'wallet_sendCalls', params, chainId: anvilChain }) as Promise<{
    id: string
  }>
const getCallsStatus = (context: TestContext, id: unknown) =>
  run(context, { method: 'wallet_getCallsStatus', params: [id] }) as Promise<{
    status: number
    receipts: { status: string; transactionHash: string }[]
  }>

/** Runs `use` with anvil mining only when told (`evm_mine`). */
async function withoutAutomine(use: () => Promise<void>): Promise<void> {
  await anvilRpc('evm_setAutomine', [false])
  try {
    await use()
  } finally {
    await anvilRpc('evm_setAutomine', [true])
  }
}

describe('inv-06 wallet_sendCalls', () => {
  test('one approval for the whole batch, then each call lands as its own transaction (nonces n, n+1)', async () => {
    const { context, addresses, approvals } = await anvilWallet()
    const to = [newAddress(), newAddress()] as const
    const params = [transfers(addresses.eip155, to)]
    const { id } = await sendCalls(context, params)
    expect(id).toMatch(/^0x[0-9a-f]{64}$/)
    // Shown as the transactions then signed: each call with its own nonce, gas and fee.
    expect(approvals).toEqual([
      {
        method: 'wallet_sendCalls',
        params: [
          {
            chainId: '0x7a69',
            from: addresses.eip155,
            calls: [
              expect.objectContaining({ to: to[0], value: '0x1', data: '0x', nonce: '0x0' }),
              expect.objectContaining({ to: to[1], value: '0x2', data: '0x', nonce: '0x1' }),
            ],
          },
        ],
        chainId: anvilChain,
        account: addresses.eip155,
        origin: 'https://host.example',
        chainName: expect.any(String),
      },
    ])
    await expect(Promise.all(to.map(balanceOf))).resolves.toEqual([1n, 2n])
    await expect(nonceOf(addresses.eip155)).resolves.toBe(2)
    const status = await getCallsStatus(context, id)
    const sent = await Promise.all(
      status.receipts.map(
        ({ transactionHash }) =>
          anvilRpc('eth_getTransactionByHash', [transactionHash]) as Promise<{
            nonce: string
            type: string
            to: string
          }>,
      ),
    )
    expect(sent.map(({ nonce, type, to }) => ({ nonce, type, to }))).toEqual([
      { nonce: '0x0', type: '0x2', to: to[0].toLowerCase() },
      { nonce: '0x1', type: '0x2', to: to[1].toLowerCase() },
    ])
  })

  test('rejected by the user (4001): nothing is signed or sent, the nonce is unchanged', async () => {
    const { context, addresses, requestApproval, node, readShare } = await anvilWallet({
      decide: () => Promise.reject(new UserRejectedError()),
    })
    const to = [newAddress(), newAddress()] as const
    await expect(sendCalls(context, [transfers(addresses.eip155, to)])).rejects.toMatchObject({
      code: 4001,
    })
    expect(requestApproval).toHaveBeenCalledTimes(1)
    expect(readShare).not.toHaveBeenCalled()
    expect(node.mock.calls.map(([name]) => name)).not.toContain('eth_sendRawTransaction')
    await expect(nonceOf(addresses.eip155)).resolves.toBe(0)
    await expect(Promise.all(to.map(balanceOf))).resolves.toEqual([0n, 0n])
  })

  test("atomicRequired is refused (5760 'Atomic execution is not supported') before any approval", async () => {
    const { context, addresses, requestApproval, node } = await wallet()
    const batch = transfers(addresses.eip155, [newAddress(), newAddress()], {
      atomicRequired: true,
    })
    await expect(sendCalls(context, [batch])).rejects.toMatchObject({
      code: 5760,
      message: 'Atomic execution is not supported',
    })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(node).not.toHaveBeenCalled()
  })

  const to = '0x000000000000000000000000000000000000dEaD'
  const call = { to, value: '0x1' }
  test.each<[string, (from: string) => unknown]>([
    ['no params', () => undefined],
    ['params not a list', (from) => transfers(from, [to, to])],
    ['two batches', (from) => [transfers(from, [to, to]), transfers(from, [to, to])]],
    ['a to without 0x', (from) => [transfers(from, [to.slice(2), to])]],
    ['a to that is not an address', (from) => [transfers(from, ['0x1234', to])]],
    ['a to with a bad checksum', (from) => [transfers(from, [to.replace('dEaD', 'DeaD'), to])]],
    ['a call without to', (from) => [{ ...transfers(from, [to, to]), calls: [{ value: '0x1' }] }]],
    [
      'data without 0x',
      (from) => [{ ...transfers(from, [to, to]), calls: [{ to, data: 'abcd' }] }],
    ],
    ['data not hex', (from) => [{ ...transfers(from, [to, to]), calls: [{ to, data: '0xzz' }] }]],
    [
      'data of half a byte',
      (from) => [{ ...transfers(from, [to, to]), calls: [{ to, data: '0xabc' }] }],
    ],
    [
      'a value in decimal',
      (from) => [{ ...transfers(from, [to, to]), calls: [{ to, value: '1' }] }],
    ],
    ['no calls', (from) => [{ ...transfers(from, [to, to]), calls: [] }]],
    ['33 calls', (from) => [{ ...transfers(from, [to, to]), calls: Array(33).fill(call) }]],
    [
      'a call with an unknown key',
      (from) => [{ ...transfers(from, [to, to]), calls: [{ ...call, gas: '0x1' }] }],
    ],
    ['an unknown key', (from) => [transfers(from, [to, to], { paymaster: to })]],
    [
      'a __proto__ key',
      (from) => [
        JSON.parse(`{"__proto__":{"x":1},${JSON.stringify(transfers(from, [to, to])).slice(1)}`),
      ],
    ],
    ['another chainId', (from) => [transfers(from, [to, to], { chainId: '0x1' })]],
    ['a decimal chainId', (from) => [transfers(from, [to, to], { chainId: '31337' })]],
    ['no chainId', (from) => [transfers(from, [to, to], { chainId: undefined })]],
    ['no version', (from) => [transfers(from, [to, to], { version: undefined })]],
    [
      'atomicRequired not a boolean',
      (from) => [transfers(from, [to, to], { atomicRequired: 'no' })],
    ],
  ])('%s is refused (-32602) before any approval', async (_, params) => {
    const { context, addresses, requestApproval, node } = await wallet()
    await expect(
      run(context, {
        method: 'wallet_sendCalls',
        params: params(addresses.eip155) as never,
        chainId: anvilChain,
      }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(node).not.toHaveBeenCalled()
  })

  test('a batch from another account is refused (4100, as every other request for another account) before any approval', async () => {
    const { context, requestApproval } = await wallet()
    await expect(sendCalls(context, [transfers(to, [to, to])])).rejects.toMatchObject({
      code: 4100,
    })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  test('a capability not marked optional is refused (5700) before any approval; an optional one is ignored', async () => {
    const { context, addresses, requestApproval } = await anvilWallet()
    const paymaster = { paymasterService: { url: 'https://paymaster.example' } }
    for (const batch of [
      transfers(addresses.eip155, [to, to], { capabilities: paymaster }),
      {
        ...transfers(addresses.eip155, [to, to]),
        calls: [{ ...call, capabilities: paymaster }],
      },
    ])
      await expect(sendCalls(context, [batch])).rejects.toMatchObject({ code: 5700 })
    expect(requestApproval).not.toHaveBeenCalled()
    const optional = { paymasterService: { url: 'https://paymaster.example', optional: true } }
    await expect(
      sendCalls(context, [transfers(addresses.eip155, [to, to], { capabilities: optional })]),
    ).resolves.toMatchObject({ id: expect.any(String) })
    expect(requestApproval).toHaveBeenCalledTimes(1)
  })

  test("the app's own id names the bundle; using it again is refused (5720) before any approval", async () => {
    const { context, addresses, requestApproval } = await anvilWallet()
    const batch = transfers(addresses.eip155, [to, to], { id: 'order-42' })
    await expect(sendCalls(context, [batch])).resolves.toEqual({ id: 'order-42' })
    await expect(getCallsStatus(context, 'order-42')).resolves.toMatchObject({ status: 200 })
    await expect(sendCalls(context, [batch])).rejects.toMatchObject({ code: 5720 })
    expect(requestApproval).toHaveBeenCalledTimes(1)
  })
})

describe('inv-17 a request given up on after Approve', () => {
  test('is not sent, and answers 4001', async () => {
    const { context, addresses } = await anvilWallet()
    const controller = new AbortController()
    const to = newAddress()
    const sent = handleRpc(
      context,
      {
        method: 'eth_sendTransaction',
        params: [{ from: addresses.eip155, to, value: '0x1' }],
        chainId: anvilChain,
      },
      // The host gives up the moment the visitor approves: signing is under way.
      { signal: controller.signal, onApproved: () => controller.abort() },
    )
    await expect(sent).rejects.toMatchObject({ code: 4001 })
    // The next transaction waits until the first one's signing has settled.
    await handleRpc(
      context,
      {
        method: 'eth_sendTransaction',
        params: [{ from: addresses.eip155, to: newAddress(), value: '0x1' }],
        chainId: anvilChain,
      },
      { signal: new AbortController().signal },
    )
    expect(await nonceOf(addresses.eip155)).toBe(1)
    expect(await balanceOf(to)).toBe(0n)
  })

  test('positive control: onApproved is told, then the transaction is sent', async () => {
    const { context, addresses } = await anvilWallet()
    const onApproved = vi.fn()
    const hash = await handleRpc(
      context,
      {
        method: 'eth_sendTransaction',
        params: [{ from: addresses.eip155, to: newAddress(), value: '0x1' }],
        chainId: anvilChain,
      },
      { signal: new AbortController().signal, onApproved },
    )
    expect(onApproved).toHaveBeenCalledTimes(1)
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await nonceOf(addresses.eip155)).toBe(1)
  })
})

describe('wallet_getCallsStatus', () => {
  test('is pending (100) until every call is mined, then confirmed (200) with each receipt', async () => {
    const { context, addresses, requestApproval } = await anvilWallet()
    await withoutAutomine(async () => {
      const { id } = await sendCalls(context, [
        transfers(addresses.eip155, [newAddress(), newAddress()]),
      ])
      await expect(getCallsStatus(context, id)).resolves.toEqual({
        version: '2.0.0',
        id,
        chainId: '0x7a69',
        atomic: false,
        status: 100,
        receipts: [],
      })
      await anvilRpc('evm_mine')
      const status = await getCallsStatus(context, id)
      expect(status).toMatchObject({ version: '2.0.0', id, chainId: '0x7a69', atomic: false })
      expect(status.status).toBe(200)
      expect(status.receipts).toHaveLength(2)
      for (const receipt of status.receipts) {
        expect(Object.keys(receipt).sort()).toEqual([
          'blockHash',
          'blockNumber',
          'gasUsed',
          'logs',
          'status',
          'transactionHash',
        ])
        expect(receipt).toMatchObject({ status: '0x1', gasUsed: '0x5208', logs: [] })
      }
    })
    // Reading a status asks for nothing.
    expect(requestApproval).toHaveBeenCalledTimes(1)
  })

  test('when sending stops after the first call, the bundle is kept and reports partial failure (600)', async () => {
    const sent: Hex[] = []
    const { context, addresses } = await wallet({
      node: (method, params) => {
        switch (method) {
          case 'eth_getTransactionCount':
            return '0x5'
          case 'eth_estimateGas':
            return '0x5208'
          case 'eth_maxPriorityFeePerGas':
            return '0x1'
          case 'eth_getBlockByNumber':
            return { baseFeePerGas: '0x64' }
          case 'eth_sendRawTransaction': {
            if (sent.length === 1) throw new Error('replacement transaction underpriced')
            const raw = (params as [Hex])[0]
            sent.push(raw)
            return keccak256(raw)
          }
          case 'eth_getTransactionReceipt':
            return {
              status: '0x1',
              blockHash: keccak256('0x01'),
              blockNumber: '0x10',
              gasUsed: '0x5208',
              transactionHash: (params as [Hex])[0],
              logs: [],
            }
          default:
            throw new Error(`unexpected ${method}`)
        }
      },
    })
    const { id } = (await run(context, {
      method: 'wallet_sendCalls',
      params: [{ ...transfers(addresses.eip155, [newAddress(), newAddress()]), chainId: '0x1' }],
    })) as { id: string }
    expect(sent.map((raw) => parseTransaction(raw).nonce)).toEqual([5])
    await expect(getCallsStatus(context, id)).resolves.toMatchObject({
      status: 600,
      receipts: [{ transactionHash: keccak256(sent[0] as Hex) }],
    })
  })

  test.each([
    ['one of two calls reverted: partially reverted (600)', 1, 600],
    ['every call reverted: reverted (500)', 2, 500],
  ])('%s', async (_, reverting, expected) => {
    const { context, addresses } = await anvilWallet()
    const to = [newAddress(), newAddress()] as const
    await withoutAutomine(async () => {
      const { id } = await sendCalls(context, [transfers(addresses.eip155, to)])
      // Plain transfers when estimated; code that reverts by the time they are mined.
      for (const target of to.slice(2 - reverting))
        await anvilRpc('anvil_setCode', [target, '0x60006000fd'])
      await anvilRpc('evm_mine')
      const status = await getCallsStatus(context, id)
      expect(status.status).toBe(expected)
      expect(status.receipts.map((receipt) => receipt.status)).toEqual(
        reverting === 1 ? ['0x1', '0x0'] : ['0x0', '0x0'],
      )
    })
  })

  test.each([
    ['an id never sent', '0x'.padEnd(66, '0')],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
  ])("%s is 5730 'Unknown bundle id'", async (_, id) => {
    const { context, node } = await wallet()
    await expect(getCallsStatus(context, id)).rejects.toMatchObject({
      code: 5730,
      message: 'Unknown bundle id',
    })
    expect(node).not.toHaveBeenCalled()
  })

  test('another user of the frame does not see the bundle (5730)', async () => {
    const { context, addresses } = await anvilWallet()
    const { id } = await sendCalls(context, [
      transfers(addresses.eip155, [newAddress(), newAddress()]),
    ])
    await loginWithEmail(context, 'grace@example.com', { connectEmail, connectOtp })
    await expect(getCallsStatus(context, id)).rejects.toMatchObject({ code: 5730 })
  })

  test.each<[string, unknown[]]>([
    ['no id', []],
    ['a number', [1]],
    ['two ids', ['a', 'b']],
    ['an id over 4096 characters', ['x'.repeat(4097)]],
  ])('%s is refused (-32602)', async (_, params) => {
    const { context } = await wallet()
    await expect(run(context, { method: 'wallet_getCallsStatus', params })).rejects.toMatchObject({
      code: -32602,
    })
  })
})

// ---------------------------------------------------------------------------
// What is shown is what is signed (SECURITY.md 20)

/** The params an approval showed. */
function paramsOf(request: ApprovalRequest | undefined): unknown {
  if (!request) throw new Error('no approval was shown')
  return request.params
}

/** Anvil's first dev account, which deploys the test token. */
const anvilKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

type SentTransaction = {
  type: string
  nonce: string
  gas: string
  gasPrice: string
  maxFeePerGas?: string
  maxPriorityFeePerGas?: string
  to: string | null
  value: string
  input: string
}

const sentTransaction = (hash: unknown) =>
  anvilRpc('eth_getTransactionByHash', [hash]) as Promise<SentTransaction>

/** The quantities and fields of `shown` (an approval's normalised transaction) as anvil reports them. */
function asSent(tx: Record<string, unknown>) {
  const quantity = (value: unknown) => (value === undefined ? undefined : BigInt(value as string))
  return {
    type: tx.type,
    nonce: quantity(tx.nonce),
    gas: quantity(tx.gas),
    maxFeePerGas: quantity(tx.maxFeePerGas),
    maxPriorityFeePerGas: quantity(tx.maxPriorityFeePerGas),
    gasPrice: quantity(tx.gasPrice),
    to: (tx.to as string | undefined)?.toLowerCase() ?? null,
    value: quantity(tx.value),
    input: tx.data,
  }
}

function fromSent(tx: SentTransaction) {
  const eip1559 = tx.type === '0x2'
  return {
    type: tx.type,
    nonce: BigInt(tx.nonce),
    gas: BigInt(tx.gas),
    maxFeePerGas: eip1559 ? BigInt(tx.maxFeePerGas as string) : undefined,
    maxPriorityFeePerGas: eip1559 ? BigInt(tx.maxPriorityFeePerGas as string) : undefined,
    gasPrice: eip1559 ? undefined : BigInt(tx.gasPrice),
    to: tx.to,
    value: BigInt(tx.value),
    input: tx.input,
  }
}

describe('inv-20 what you see is what you sign', () => {
  let token: Hex
  const tokenClient = () => createAnvilClients({ rpcUrl: anvil.url, privateKey: anvilKey })
  const mint = async (to: string, amount: bigint) => {
    const { publicClient, walletClient } = tokenClient()
    const hash = await walletClient.writeContract({
      address: token,
      abi: testTokenAbi,
      functionName: 'mint',
      args: [to as Hex, amount],
    })
    await publicClient.waitForTransactionReceipt({ hash })
  }
  const tokenBalance = (owner: string) =>
    tokenClient().publicClient.readContract({
      address: token,
      abi: testTokenAbi,
      functionName: 'balanceOf',
      args: [owner as Hex],
    })

  beforeAll(async () => {
    // The e2e stack's dev token: PTT, 6 decimals.
    ;({ address: token } = await deployTestToken({
      rpcUrl: anvil.url,
      privateKey: anvilKey,
      name: 'Porthole Test Token',
      symbol: 'PTT',
      decimals: 6,
    }))
  }, 60_000)

  test('eth_sendTransaction with its call in `input`: the approval shows the token transfer that is signed', async () => {
    const { context, addresses, approvals } = await anvilWallet()
    await mint(addresses.eip155, 1_250_000n)
    const attacker = newAddress()
    const input = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [attacker, 1_250_000n],
    })
    const hash = await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to: token, input }],
      chainId: anvilChain,
    })
    // Signed and sent with that call…
    await expect(tokenBalance(attacker)).resolves.toBe(1_250_000n)
    expect((await sentTransaction(hash)).input).toBe(input)
    // …and shown as what it is: a transfer of 1.25 PTT to the attacker.
    const text = shown(approvals[0])
    expect(text).toContain(`Recipient: ${attacker}`)
    expect(text).toContain('Token amount: 1.25 PTT')
    expect((paramsOf(approvals[0]) as [{ data: string }])[0].data).toBe(input)
  })

  test('the nonce, gas and fees are filled before the approval, shown with the maximum fee in ETH, and signed as shown', async () => {
    let seenBeforeApproval: string[] = []
    const { context, addresses, approvals, node } = await anvilWallet({
      decide: async () => {
        seenBeforeApproval = node.mock.calls.map(([method]) => method)
      },
    })
    const to = newAddress()
    const hash = await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to, value: '0x2386f26fc10000' }],
      chainId: anvilChain,
    })
    expect(seenBeforeApproval).toEqual(
      expect.arrayContaining(['eth_getTransactionCount', 'eth_estimateGas']),
    )
    expect(seenBeforeApproval).not.toContain('eth_sendRawTransaction')
    const [tx] = paramsOf(approvals[0]) as [Record<string, unknown>]
    expect(fromSent(await sentTransaction(hash))).toEqual(asSent(tx))
    const text = shown(approvals[0])
    expect(text).toContain('Amount: 0.01 ETH')
    expect(text).toContain('Nonce: 0')
    expect(text).toContain('Gas limit: 21000')
    expect(text).toMatch(/Max network fee: [0-9.]+ ETH/)
  })

  test('`gasLimit` and `gasPrice` are signed as they are shown, never dropped', async () => {
    const { context, addresses, approvals } = await anvilWallet()
    const hash = await run(context, {
      method: 'eth_sendTransaction',
      params: [
        {
          from: addresses.eip155,
          to: newAddress(),
          value: '0x1',
          gasLimit: '0x5300',
          gasPrice: '0x77359400',
        },
      ],
      chainId: anvilChain,
    })
    const sent = await sentTransaction(hash)
    expect(sent).toMatchObject({ type: '0x0', gas: '0x5300', gasPrice: '0x77359400' })
    const [tx] = paramsOf(approvals[0]) as [Record<string, unknown>]
    expect(fromSent(sent)).toEqual(asSent(tx))
    const text = shown(approvals[0])
    expect(text).toContain('Gas limit: 21248')
    expect(text).toContain('Gas price: 2 gwei')
    // 21248 × 2 gwei
    expect(text).toContain('Max network fee: 0.000042496 ETH')
  })

  test('the shown request cannot be changed between showing and signing', async () => {
    const attacker = newAddress()
    const to = newAddress()
    const { context, addresses } = await anvilWallet({
      decide: async (request) => {
        const [tx] = request.params as [Record<string, unknown>]
        expect(() => {
          tx.to = attacker
        }).toThrow(TypeError)
        expect(() => {
          tx.value = '0xde0b6b3a7640000'
        }).toThrow(TypeError)
        expect(() => {
          ;(request.params as unknown[])[0] = { ...tx, to: attacker }
        }).toThrow(TypeError)
      },
    })
    await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to, value: '0x1' }],
      chainId: anvilChain,
    })
    await expect(Promise.all([balanceOf(to), balanceOf(attacker)])).resolves.toEqual([1n, 0n])
  })

  test('wallet_sendCalls: each call is shown with its nonce, gas, fee and decoded token call, and signed as shown', async () => {
    const { context, addresses, approvals } = await anvilWallet()
    await mint(addresses.eip155, 5_000_000n)
    const recipient = newAddress()
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [recipient, 2_500_000n],
    })
    const { id } = await sendCalls(context, [
      {
        version: '2.0.0',
        chainId: '0x7a69',
        from: addresses.eip155,
        atomicRequired: false,
        calls: [
          { to: token, data },
          { to: recipient, value: '0x1' },
        ],
      },
    ])
    const status = await getCallsStatus(context, id)
    const sent = await Promise.all(
      status.receipts.map(({ transactionHash }) => sentTransaction(transactionHash)),
    )
    const [batch] = paramsOf(approvals[0]) as [{ calls: Record<string, unknown>[] }]
    expect(sent.map(fromSent)).toEqual(batch.calls.map(asSent))
    const text = shown(approvals[0])
    expect(text).toContain(`Recipient: ${recipient}`)
    expect(text).toContain('Token amount: 2.5 PTT')
    expect(text).toContain('Nonce: 0')
    expect(text).toContain('Nonce: 1')
    expect(text).toMatch(/Max network fee: [0-9.]+ ETH/)
  })

  test('an ERC-20 call whose token details cannot be read shows raw units, labelled, and is still shown', async () => {
    const { context, addresses, approvals } = await anvilWallet()
    // No contract at this address: symbol() and decimals() answer nothing.
    const notAToken = newAddress()
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'approve',
      args: [newAddress(), maxUint256],
    })
    await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to: notAToken, data, gas: '0x10000' }],
      chainId: anvilChain,
    })
    const text = shown(approvals[0])
    expect(text).toContain('Allowance: unlimited')
    expect(text).toContain('This approval lets the spender take all your tokens.')
    const transfer = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [newAddress(), 7n],
    })
    await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to: notAToken, data: transfer, gas: '0x10000' }],
      chainId: anvilChain,
    })
    expect(shown(approvals[1])).toContain(
      'Token amount: 7 (raw units: the token’s symbol and decimals could not be read)',
    )
  })

  test('native amounts are in the network’s own currency (POL on Polygon), fees included', async () => {
    const { context, addresses, approvals } = await wallet({
      node: scriptedNode({
        eth_getTransactionCount: '0x0',
        eth_estimateGas: '0x5208',
        eth_maxPriorityFeePerGas: '0x3b9aca00',
        eth_getBlockByNumber: { baseFeePerGas: '0x3b9aca00' },
        eth_sendRawTransaction: keccak256('0x01'),
      }),
    })
    await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to: newAddress(), value: '0xde0b6b3a7640000' }],
      chainId: 'eip155:137',
    })
    const text = shown(approvals[0])
    expect(text).toContain('Amount: 1 POL')
    // 21000 gas × (2 × 1 gwei base + 1 gwei priority)
    expect(text).toContain('Max network fee: 0.000063 POL')
    expect(text).not.toContain('ETH')
  })

  const to = '0x000000000000000000000000000000000000dEaD'
  test.each<[string, (from: string) => unknown[]]>([
    ['an unknown key', (from) => [{ from, to, value: '0x1', gasLimitt: '0x5208' }]],
    ['a __proto__ key', (from) => [JSON.parse(`{"__proto__":{"to":"${from}"},"to":"${to}"}`)]],
    ['`input` and `data` that differ', (from) => [{ from, to, data: '0x12', input: '0x34' }]],
    [
      '`gas` and `gasLimit` that differ',
      (from) => [{ from, to, gas: '0x5208', gasLimit: '0x5300' }],
    ],
    [
      '`gasPrice` with `maxFeePerGas`',
      (from) => [{ from, to, gasPrice: '0x1', maxFeePerGas: '0x2' }],
    ],
    ['type 0x2 with `gasPrice`', (from) => [{ from, to, type: '0x2', gasPrice: '0x1' }]],
    ['an EIP-2930 type', (from) => [{ from, to, type: '0x1' }]],
    ['data of half a byte', (from) => [{ from, to, data: '0xabc' }]],
    ['a to with a bad checksum', (from) => [{ from, to: to.replace('dEaD', 'DeaD') }]],
    [
      'two transactions',
      (from) => [
        { from, to },
        { from, to },
      ],
    ],
  ])('eth_sendTransaction with %s is refused (-32602) before any approval', async (_, params) => {
    const { context, addresses, requestApproval, node } = await wallet()
    await expect(
      run(context, { method: 'eth_sendTransaction', params: params(addresses.eip155) }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(node).not.toHaveBeenCalled()
  })

  test.each<[string, (from: string) => Record<string, unknown>]>([
    ['`input` alone', (from) => ({ from, to, input: '0x1234' })],
    ['`data` and `input` alike', (from) => ({ from, to, data: '0x1234', input: '0x1234' })],
    ['`gasLimit` alone', (from) => ({ from, to, data: '0x1234', gasLimit: '0x5300' })],
    ['`gas` and `gasLimit` alike', (from) => ({ from, to, gas: '0x5300', gasLimit: '0x5300' })],
    ['type 0x2 with its fees', (from) => ({ from, to, type: '0x2', maxFeePerGas: '0x2540be400' })],
  ])('eth_sendTransaction with %s is normalised once and shown as signed', async (_, tx) => {
    const { context, addresses, approvals } = await anvilWallet()
    const params = tx(addresses.eip155)
    const hash = await run(context, {
      method: 'eth_sendTransaction',
      params: [params],
      chainId: anvilChain,
    })
    const [normalised] = paramsOf(approvals[0]) as [Record<string, unknown>]
    expect(Object.keys(normalised)).not.toContain('input')
    expect(Object.keys(normalised)).not.toContain('gasLimit')
    expect(fromSent(await sentTransaction(hash))).toEqual(asSent(normalised))
    expect(normalised.data).toBe(params.data ?? params.input ?? '0x')
  })

  const mail = (address: string) => typedData(address)
  test.each<[string, (address: string) => unknown]>([
    ['an unknown top-level key', (a) => ({ ...mail(a), extra: true })],
    ['an unknown domain key', (a) => ({ ...mail(a), domain: { ...mail(a).domain, owner: a } })],
    [
      'a message field its types do not list (shown, never signed)',
      (a) => ({ ...mail(a), message: { ...mail(a).message, amount: '1000000' } }),
    ],
    ['a message missing a typed field', (a) => ({ ...mail(a), message: { to: a } })],
    [
      'a domain field its EIP712Domain type does not list (shown, never signed)',
      (a) => ({
        ...mail(a),
        domain: { ...mail(a).domain, verifyingContract: to },
      }),
    ],
    ['a primary type it does not define', (a) => ({ ...mail(a), primaryType: 'Order' })],
  ])('eth_signTypedData_v4 with %s is refused (-32602) before any approval', async (_, data) => {
    const { context, addresses, requestApproval } = await wallet()
    await expect(
      run(context, {
        method: 'eth_signTypedData_v4',
        params: [addresses.eip155, JSON.stringify(data(addresses.eip155))],
      }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  test('eth_signTypedData_v4 shows the domain and the typed fields it signs', async () => {
    const { context, addresses, approvals } = await wallet()
    const data = {
      ...typedData(addresses.eip155),
      types: {
        ...typedData(addresses.eip155).types,
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
      domain: { name: 'Porthole', version: '1', chainId: 1, verifyingContract: to },
    }
    const signature = (await run(context, {
      method: 'eth_signTypedData_v4',
      params: [addresses.eip155, JSON.stringify(data)],
    })) as Hex
    await expect(
      verifyTypedData({ ...data, address: addresses.eip155 as Hex, signature } as never),
    ).resolves.toBe(true)
    const text = shown(approvals[0])
    for (const line of [
      'Name: Porthole',
      'Version: 1',
      'Chain id: 1',
      `Verifying contract: ${to}`,
      `to: ${addresses.eip155}`,
      'contents: Hello',
    ])
      expect(text).toContain(line)
  })

  test.each<[string, (address: string) => unknown[]]>([
    ['a third param', (a) => ['0x68656c6c6f', a, '']],
    ['hex of half a byte (shown as text, signed padded)', (a) => ['0xabc', a]],
  ])('personal_sign with %s is refused (-32602) before any approval', async (_, params) => {
    const { context, addresses, requestApproval } = await wallet()
    await expect(
      run(context, { method: 'personal_sign', params: params(addresses.eip155) }),
    ).rejects.toMatchObject({ code: -32602 })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  test('on a network without EIP-1559 the transaction is legacy, its gas price shown and signed', async () => {
    let raw: Hex | undefined
    const { context, addresses, approvals } = await wallet({
      node: scriptedNode({
        eth_getTransactionCount: '0x3',
        eth_estimateGas: '0x5208',
        eth_maxPriorityFeePerGas: '0x0',
        eth_getBlockByNumber: { number: '0x10' },
        eth_gasPrice: '0x12a05f200',
        eth_sendRawTransaction: (params: unknown) => {
          raw = (params as [Hex])[0]
          return keccak256(raw)
        },
      }),
    })
    await run(context, {
      method: 'eth_sendTransaction',
      params: [{ from: addresses.eip155, to, value: '0x1' }],
      chainId: 'eip155:56',
    })
    if (!raw) throw new Error('nothing sent')
    expect(parseTransaction(raw)).toMatchObject({
      type: 'legacy',
      chainId: 56,
      nonce: 3,
      gas: 21000n,
      gasPrice: 5_000_000_000n,
    })
    const text = shown(approvals[0])
    expect(text).toContain('Gas price: 5 gwei')
    expect(text).toContain('Max network fee: 0.000105 BNB')
  })
})

describe('inv-20 sign-in messages', () => {
  const host = 'https://host.example'
  const siwe = (address: string, fields: { domain: string; uri: string; scheme?: string }) =>
    createSiweMessage({
      address: address as Hex,
      chainId: 1,
      nonce: 'abcdefgh12345678',
      version: '1',
      issuedAt: new Date('2025-01-01T00:00:00Z'),
      ...fields,
    })

  test.each<[string, (address: string) => string]>([
    ['another domain', (a) => siwe(a, { domain: 'bank.example', uri: 'https://bank.example' })],
    [
      'another domain, with its scheme',
      (a) => siwe(a, { scheme: 'https', domain: 'bank.example', uri: 'https://bank.example/' }),
    ],
    [
      'our domain but another URI',
      (a) => siwe(a, { domain: 'host.example', uri: 'https://bank.example/login' }),
    ],
    [
      'our host on another scheme',
      (a) => siwe(a, { scheme: 'http', domain: 'host.example', uri: 'http://host.example' }),
    ],
    [
      'our host on another port',
      (a) => siwe(a, { domain: 'host.example:8443', uri: 'https://host.example:8443' }),
    ],
    [
      'another domain, hex-encoded',
      (a) => stringToHex(siwe(a, { domain: 'bank.example', uri: 'https://bank.example' })),
    ],
    [
      'our domain, and another URI inside a line (viem parses XURI: as the URI)',
      (a) =>
        siwe(a, { domain: 'host.example', uri: host }).replace(
          /\nVersion:/,
          '\nXURI: https://bank.example\nVersion:',
        ),
    ],
    [
      'another domain, with Windows line ends and a trailing line',
      (a) =>
        `${siwe(a, { domain: 'bank.example', uri: 'https://bank.example' }).replaceAll('\n', '\r\n')}\r\n`,
    ],
  ])(
    'personal_sign of a sign-in message for %s is refused (-32602) before any approval',
    async (_, message) => {
      const { context, addresses, requestApproval, readShare } = await wallet()
      const error = await run(context, {
        method: 'personal_sign',
        params: [message(addresses.eip155), addresses.eip155],
        origin: host,
      }).catch((error: unknown) => error)
      expect(error).toMatchObject({ code: -32602, message: expect.stringMatching(/sign-in/i) })
      expect(requestApproval).not.toHaveBeenCalled()
      expect(readShare).not.toHaveBeenCalled()
    },
  )

  test.each<[string, string, (address: string) => string]>([
    [
      'the widget’s own SIWX message (scheme, domain and URI of the host)',
      host,
      (a) => siwe(a, { scheme: 'https', domain: 'host.example', uri: host }),
    ],
    [
      'a message without scheme for the host',
      host,
      (a) => siwe(a, { domain: 'host.example', uri: `${host}/login` }),
    ],
    [
      'the widget’s SIWX message for a dev host on a port',
      'http://127.0.0.1:5173',
      (a) => siwe(a, { scheme: 'http', domain: '127.0.0.1:5173', uri: 'http://127.0.0.1:5173' }),
    ],
  ])('personal_sign of %s is shown and signed', async (_, origin, message) => {
    const { context, addresses, requestApproval } = await wallet()
    context.ancestorOrigin = () => origin
    const text = message(addresses.eip155)
    await expectPersonalSign(context, addresses.eip155, text, text)
    expect(requestApproval).toHaveBeenCalledTimes(1)
  })
})

describe('inv-18 eth_sendTransaction params', () => {
  const normalisedKeys = new Set([
    'type',
    'chainId',
    'from',
    'to',
    'value',
    'data',
    'nonce',
    'gas',
    'gasPrice',
    'maxFeePerGas',
    'maxPriorityFeePerGas',
  ])
  const node = scriptedNode({
    eth_getTransactionCount: '0x1',
    eth_estimateGas: '0x5208',
    eth_maxPriorityFeePerGas: '0x3b9aca00',
    eth_gasPrice: '0x3b9aca00',
    eth_getBlockByNumber: { baseFeePerGas: '0x3b9aca00' },
    eth_call: '0x',
    eth_sendRawTransaction: keccak256('0x01'),
  })

  test('any params are refused (an RPC error, before any approval) or shown normalised, keys and aliases folded', async () => {
    const { context, addresses, approvals } = await wallet({ node })
    const value = fc.constantFrom<unknown>(
      '0x1',
      '0x5208',
      '0x0',
      '0x',
      '0xabc',
      '0xa9059cbb',
      '0x1234',
      '1',
      1,
      null,
      '',
      addresses.eip155,
      '0x000000000000000000000000000000000000dEaD',
      '0x000000000000000000000000000000000000DEAD',
      { toString: '0x1' },
    )
    const key = fc.constantFrom(
      ...normalisedKeys,
      'input',
      'gasLimit',
      'accessList',
      '__proto__',
      'constructor',
      'authorizationList',
    )
    const params = fc.oneof(
      fc.anything(),
      fc.tuple(fc.dictionary(key, value, { maxKeys: 8 })),
      fc.tuple(fc.dictionary(key, value, { maxKeys: 8 }), fc.anything()),
    )
    await fc.assert(
      fc.asyncProperty(params, async (params) => {
        const before = approvals.length
        try {
          await run(context, { method: 'eth_sendTransaction', params: params as never })
        } catch (error) {
          expect(error).toBeInstanceOf(RpcError)
          expect(approvals).toHaveLength(before)
          return
        }
        const [tx] = paramsOf(approvals.at(-1)) as [Record<string, unknown>]
        for (const name of Object.keys(tx)) expect(normalisedKeys.has(name)).toBe(true)
        expect(Object.isFrozen(tx)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})
