import { ed25519 } from '@noble/curves/ed25519'
import { safeMethods } from '@porthole/protocol/EmbeddedRpc'
import { ErrorMessage, UserRejectedError } from '@porthole/protocol/Errors'
import { base58 } from '@scure/base'
import {
  type Hex,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  verifyMessage,
  verifyTypedData,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { type LocalAnvil, startAnvil } from '../../../../e2e/support/localAnvil.js'
import { connectEmail } from '../handlers/connectEmail.js'
import { connectOtp } from '../handlers/connectOtp.js'
import { createMemoryApi } from '../internal/memoryApi.js'
import { createTestContext, loginWithEmail, type TestContext } from '../internal/testContext.js'
import { handleRpc, methodNotSupported } from './rpc.js'
import type { ApprovalRequest, RequestApproval } from './session.js'

const email = 'ada@example.com'
const solanaMainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

type Node = (method: string, params: unknown) => unknown

/** A logged-in frame whose approval UI answers `decide`, over a scripted node. */
async function wallet(options: { decide?: RequestApproval; node?: Node } = {}) {
  const node = vi.fn<Node>(options.node ?? (() => '0x0'))
  const api = createMemoryApi({ rpc: async (_, method, params) => node(method, params) })
  const approvals: ApprovalRequest[] = []
  const decide = options.decide ?? (async () => {})
  const requestApproval = vi.fn<RequestApproval>(async (request, approvalOptions) => {
    approvals.push(request)
    return decide(request, approvalOptions)
  })
  const context = createTestContext({ api, requestApproval })
  await loginWithEmail(context, email, { connectEmail, connectOtp })
  const addresses = api.users.get(email)?.wallet?.addresses
  if (!addresses) throw new Error('no wallet')
  // Reading the device share is the first step of every signature.
  const readShare = vi.spyOn(context.storage, 'getDeviceShare')
  return { context, addresses, approvals, requestApproval, node, readShare }
}

const run = (
  context: Awaited<ReturnType<typeof wallet>>['context'],
  request: Parameters<typeof handleRpc>[1],
  signal = new AbortController().signal,
) => handleRpc(context, request, { signal })

const typedData = (address: string) => ({
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
    ],
    Mail: [
      { name: 'to', type: 'address' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: { name: 'Porthole', chainId: 1 },
  message: { to: address, contents: 'Hello' },
})

describe('inv-06 rpcRequest', () => {
  test.each([
    'eth_sign',
    'eth_signTransaction',
    'eth_signTypedData',
    'wallet_addEthereumChain',
    'debug_traceTransaction',
    'anvil_setBalance',
    '__proto__',
    'constructor',
    'toString',
  ])(
    "%s is refused with 'Requested RPC call is not allowed' and reaches nothing",
    async (method) => {
      const { context, requestApproval, node, readShare } = await wallet()
      await expect(run(context, { method, params: [] })).rejects.toMatchObject({
        code: 4200,
        message: ErrorMessage.rpcNotAllowed,
      })
      expect(requestApproval).not.toHaveBeenCalled()
      expect(node).not.toHaveBeenCalled()
      expect(readShare).not.toHaveBeenCalled()
    },
  )

  test.each(safeMethods.filter((method) => !method.startsWith('wallet_')))(
    'the safe method %s never asks for approval',
    async (method) => {
      const { context, requestApproval, readShare } = await wallet()
      await run(context, { method, params: [] })
      expect(requestApproval).not.toHaveBeenCalled()
      expect(readShare).not.toHaveBeenCalled()
    },
  )

  test.each([
    ['personal_sign', (a: string) => ['0x68656c6c6f', a]],
    ['eth_signTypedData_v4', (a: string) => [a, JSON.stringify(typedData(a))]],
    ['eth_sendTransaction', (a: string) => [{ from: a, to: a, value: '0x1' }]],
  ])('%s rejected by the user signs nothing', async (method, params) => {
    const { context, addresses, requestApproval, node, readShare } = await wallet({
      decide: () => Promise.reject(new UserRejectedError()),
    })
    await expect(run(context, { method, params: params(addresses.eip155) })).rejects.toMatchObject({
      code: 4001,
    })
    expect(requestApproval).toHaveBeenCalledTimes(1)
    expect(readShare).not.toHaveBeenCalled()
    expect(node).not.toHaveBeenCalled()
  })

  test('solana_signMessage rejected by the user signs nothing', async () => {
    const { context, addresses, readShare } = await wallet({
      decide: () => Promise.reject(new UserRejectedError()),
    })
    const params = {
      message: base58.encode(new TextEncoder().encode('hi')),
      pubkey: addresses.solana,
    }
    await expect(run(context, { method: 'solana_signMessage', params })).rejects.toMatchObject({
      code: 4001,
    })
    expect(readShare).not.toHaveBeenCalled()
  })

  test("an aborted request rejects its pending approval ('Request was aborted') and signs nothing", async () => {
    let approvalSignal: AbortSignal | undefined
    const { context, addresses, readShare } = await wallet({
      // An approval UI that never decides.
      decide: (_, options) => {
        approvalSignal = options?.signal
        return new Promise(() => {})
      },
    })
    const controller = new AbortController()
    const pending = run(
      context,
      { method: 'personal_sign', params: ['0x68656c6c6f', addresses.eip155] },
      controller.signal,
    )
    await vi.waitFor(() => expect(approvalSignal).toBeDefined())
    controller.abort()
    await expect(pending).rejects.toMatchObject({ code: 4001, message: 'Request was aborted' })
    expect(approvalSignal?.aborted).toBe(true)
    expect(readShare).not.toHaveBeenCalled()
  })

  test('an approval that arrives after the request was aborted signs nothing', async () => {
    const controller = new AbortController()
    const { context, addresses, readShare } = await wallet({
      decide: async () => {
        controller.abort()
      },
    })
    await expect(
      run(
        context,
        { method: 'personal_sign', params: ['0x68656c6c6f', addresses.eip155] },
        controller.signal,
      ),
    ).rejects.toMatchObject({ message: 'Request was aborted' })
    expect(readShare).not.toHaveBeenCalled()
  })

  test.each([
    'solana_signAndSendTransaction',
    'wallet_grantPermissions',
    'wallet_revokePermissions',
    'eth_sendUserOperation',
  ])("%s answers 'Method not supported yet' without showing an approval", async (method) => {
    const { context, requestApproval, readShare } = await wallet()
    await expect(run(context, { method, params: [] })).rejects.toMatchObject({
      code: 4200,
      message: methodNotSupported,
    })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(readShare).not.toHaveBeenCalled()
  })

  test('a request for another account is refused before any approval', async () => {
    const { context, requestApproval } = await wallet()
    const other = '0x000000000000000000000000000000000000dEaD'
    await expect(
      run(context, { method: 'personal_sign', params: ['0x68656c6c6f', other] }),
    ).rejects.toMatchObject({ code: 4100 })
    expect(requestApproval).not.toHaveBeenCalled()
  })

  test('needs a logged-in user (4100) before anything is shown', async () => {
    const requestApproval = vi.fn<RequestApproval>()
    const context = createTestContext({ requestApproval })
    await expect(
      handleRpc(
        context,
        { method: 'personal_sign', params: ['0x00', '0x000000000000000000000000000000000000dEaD'] },
        { signal: new AbortController().signal },
      ),
    ).rejects.toMatchObject({ code: 4100 })
    expect(requestApproval).not.toHaveBeenCalled()
  })
})

describe('inv-08 rpcRequest', () => {
  test("the approval shows the browser's host origin, not the one the request claims", async () => {
    const { context, addresses, approvals } = await wallet()
    context.memory.dappData = {
      projectId: 'demo',
      sdkVersion: '1',
      metadata: {
        name: 'Totally Uniswap',
        description: '',
        url: 'https://uniswap.org',
        icons: ['https://host.example/icon.png'],
      },
    }
    const params = ['0x68656c6c6f', addresses.eip155]
    await run(context, {
      method: 'personal_sign',
      params,
      chainId: 'eip155:10',
      origin: 'https://uniswap.org',
    })
    expect(approvals).toEqual([
      {
        method: 'personal_sign',
        params,
        chainId: 'eip155:10',
        account: addresses.eip155,
        origin: 'https://host.example',
        site: { name: 'Totally Uniswap', icon: 'https://host.example/icon.png' },
      },
    ])
  })

  test('without ancestorOrigins (Firefox) the origin from the widget handshake is shown', async () => {
    const { context, addresses, approvals } = await wallet()
    context.ancestorOrigin = () => undefined
    await run(context, {
      method: 'personal_sign',
      params: ['0x00', addresses.eip155],
      origin: 'https://host.example',
    })
    expect(approvals[0]?.origin).toBe('https://host.example')
  })

  test('with no origin at all, nothing is shown or signed', async () => {
    const { context, addresses, requestApproval } = await wallet()
    context.ancestorOrigin = () => undefined
    await expect(
      run(context, { method: 'personal_sign', params: ['0x00', addresses.eip155] }),
    ).rejects.toMatchObject({ code: 4100 })
    expect(requestApproval).not.toHaveBeenCalled()
  })
})

describe('signing', () => {
  test('personal_sign signs the raw bytes with the EVM account', async () => {
    const { context, addresses } = await wallet()
    const signature = (await run(context, {
      method: 'personal_sign',
      params: ['0x68656c6c6f', addresses.eip155],
    })) as Hex
    await expect(
      verifyMessage({ address: addresses.eip155 as Hex, message: 'hello', signature }),
    ).resolves.toBe(true)
  })

  test('personal_sign also signs a plain text message', async () => {
    const { context, addresses } = await wallet()
    const signature = (await run(context, {
      method: 'personal_sign',
      params: ['hello', addresses.eip155],
    })) as Hex
    await expect(
      verifyMessage({ address: addresses.eip155 as Hex, message: 'hello', signature }),
    ).resolves.toBe(true)
  })

  test('signing works after a reload (the auth share is fetched again)', async () => {
    const { context, addresses } = await wallet()
    context.memory.unlocked = undefined
    const signature = (await run(context, {
      method: 'personal_sign',
      params: ['0x68656c6c6f', addresses.eip155],
    })) as Hex
    await expect(
      verifyMessage({ address: addresses.eip155 as Hex, message: 'hello', signature }),
    ).resolves.toBe(true)
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
      node: (method, params) => {
        switch (method) {
          case 'eth_getTransactionCount':
            return '0x5'
          case 'eth_estimateGas':
            return '0x5208'
          case 'eth_maxPriorityFeePerGas':
            return '0x3b9aca00'
          case 'eth_getBlockByNumber':
            return { number: '0x10', baseFeePerGas: '0x64' }
          case 'eth_sendRawTransaction':
            raw = (params as [Hex])[0]
            return keccak256(raw)
          default:
            throw new Error(`unexpected ${method}`)
        }
      },
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

  test('solana_signMessage signs the base58 message with the Solana key', async () => {
    const { context, addresses, approvals } = await wallet()
    const message = new TextEncoder().encode('Sign in to host.example')
    const { signature } = (await run(context, {
      method: 'solana_signMessage',
      params: { message: base58.encode(message), pubkey: addresses.solana },
    })) as { signature: string }
    expect(ed25519.verify(base58.decode(signature), message, base58.decode(addresses.solana))).toBe(
      true,
    )
    expect(approvals[0]).toMatchObject({ chainId: solanaMainnet, account: addresses.solana })
  })
})

describe('safe methods', () => {
  test('eth_accounts is the EVM address when logged in, [] otherwise', async () => {
    const { context, addresses } = await wallet()
    await expect(run(context, { method: 'eth_accounts' })).resolves.toEqual([addresses.eip155])
    await expect(
      handleRpc(
        createTestContext(),
        { method: 'eth_accounts' },
        { signal: AbortSignal.timeout(1000) },
      ),
    ).resolves.toEqual([])
    await expect(
      handleRpc(
        createTestContext(),
        { method: 'eth_requestAccounts' },
        { signal: AbortSignal.timeout(1000) },
      ),
    ).rejects.toMatchObject({ code: 4100 })
  })

  test('eth_chainId and net_version follow the request, else the network in use', async () => {
    const { context } = await wallet()
    await expect(run(context, { method: 'eth_chainId' })).resolves.toBe('0x1')
    await expect(run(context, { method: 'eth_chainId', chainId: 'eip155:8453' })).resolves.toBe(
      '0x2105',
    )
    await expect(run(context, { method: 'net_version', chainId: 'eip155:137' })).resolves.toBe(
      '137',
    )
    await expect(
      run(context, { method: 'eth_chainId', chainId: solanaMainnet }),
    ).rejects.toMatchObject({ code: 4901 })
  })

  test('wallet_getCapabilities answers atomic batches unsupported per chain asked', async () => {
    const { context, addresses } = await wallet()
    const unsupported = { atomic: { status: 'unsupported' } }
    await expect(
      run(context, {
        method: 'wallet_getCapabilities',
        params: [addresses.eip155, ['0x1', '0x2105']],
      }),
    ).resolves.toEqual({ '0x1': unsupported, '0x2105': unsupported })
    await expect(run(context, { method: 'wallet_getCapabilities', params: [] })).resolves.toEqual({
      '0x1': unsupported,
    })
  })

  test('read-only calls go to the proxy for the request chain', async () => {
    const { context, node } = await wallet({ node: () => '0x1234' })
    const rpc = vi.spyOn(context.api, 'rpc')
    await expect(
      run(context, {
        method: 'eth_getBalance',
        params: ['0x000000000000000000000000000000000000dEaD', 'latest'],
        chainId: 'eip155:10',
      }),
    ).resolves.toBe('0x1234')
    expect(rpc).toHaveBeenCalledWith('eip155:10', 'eth_getBalance', [
      '0x000000000000000000000000000000000000dEaD',
      'latest',
    ])
    expect(node).toHaveBeenCalledTimes(1)
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
const balanceOf = async (address: string) =>
  BigInt((await anvilRpc('eth_getBalance', [address, 'latest'])) as string)
const nonceOf = async (address: string) =>
  Number((await anvilRpc('eth_getTransactionCount', [address, 'latest'])) as string)

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
    expect(approvals).toEqual([
      {
        method: 'wallet_sendCalls',
        params,
        chainId: anvilChain,
        account: addresses.eip155,
        origin: 'https://host.example',
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
    expect(node).not.toHaveBeenCalled()
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
