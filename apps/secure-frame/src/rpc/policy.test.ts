import { safeMethods } from '@porthole/protocol/EmbeddedRpc'
import { ErrorMessage, UserRejectedError } from '@porthole/protocol/Errors'
import { base58 } from '@scure/base'
import { describe, expect, test, vi } from 'vitest'
import { run, solanaMainnet, typedData, wallet } from '../../test/rpcWallet.js'
import { createTestContext } from '../../test/testContext.js'
import type { RequestApproval } from '../wallet/session.js'
import { handleRpc, methodNotSupported } from './policy.js'

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
    // A transaction is filled (nonce, gas, fees) before it is shown; nothing is sent.
    expect(node.mock.calls.map(([name]) => name)).not.toContain('eth_sendRawTransaction')
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

  // solana_signAndSendTransaction is signed and sent since issue 13 (wallet/solana/send.ts).
  test.each(['wallet_grantPermissions', 'wallet_revokePermissions', 'eth_sendUserOperation'])(
    "%s answers 'Method not supported yet' without showing an approval",
    async (method) => {
      const { context, requestApproval, readShare } = await wallet()
      await expect(run(context, { method, params: [] })).rejects.toMatchObject({
        code: 4200,
        message: methodNotSupported,
      })
      expect(requestApproval).not.toHaveBeenCalled()
      expect(readShare).not.toHaveBeenCalled()
    },
  )

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
        chainName: 'OP Mainnet',
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
