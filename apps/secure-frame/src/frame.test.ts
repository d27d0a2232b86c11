import * as Channel from '@porthole/protocol/Channel'
import * as Contract from '@porthole/protocol/Contract'
import * as Secure from '@porthole/protocol/Secure'
import fc from 'fast-check'
import { afterEach, describe, expect, test, vi } from 'vitest'
import packageJson from '../package.json' with { type: 'json' }
import { createTestContext, type TestContext } from '../test/testContext.js'
import { type SecureChannel, startFrame } from './frame.js'

type WidgetChannel = Channel.Channel<Secure.WidgetSpec, Secure.SecureSpec>

const open: Array<{ destroy(): void }> = []
afterEach(() => {
  for (const channel of open.splice(0)) channel.destroy()
})

/** The widget's side and the frame's side of one port pair, as after a handshake. */
function connect(context: TestContext = createTestContext()) {
  const { port1, port2 } = new MessageChannel()
  const widget: WidgetChannel = Channel.create<Secure.WidgetSpec, Secure.SecureSpec>({
    port: port1,
    origin: 'http://secure.localhost:5172',
    parsers: Contract.parsers(Secure.widget, Secure.secure),
  })
  const ready = new Promise<void>((resolve) => widget.on('ready', () => resolve()))
  const root = { dataset: {} as DOMStringMap }
  context.root = root
  const frame: SecureChannel = startFrame(
    { port: port2, origin: 'http://widget.localhost:5171' },
    { context },
  )
  open.push(widget, frame)
  return { widget, frame, root, ready, context }
}

describe('startFrame', () => {
  test('emits ready once its handlers answer, bound to the widget origin', async () => {
    const { widget, frame, ready } = connect()
    await ready
    expect(frame.origin).toBe('http://widget.localhost:5171')
    await expect(widget.request('ping', undefined)).resolves.toEqual({
      version: packageJson.version,
    })
  })

  test.each(['dark', 'light'] as const)(
    'syncTheme %s sets data-theme on the root',
    async (theme) => {
      const { widget, root, ready } = connect()
      await ready
      await expect(widget.request('syncTheme', { theme })).resolves.toBeUndefined()
      expect(root.dataset.theme).toBe(theme)
    },
  )

  test.each([
    ['an unknown theme', { theme: 'blue' }],
    ['an extra key', { theme: 'dark', css: 'body{}' }],
    ['no params', undefined],
  ])('inv-18 syncTheme with %s is refused with -32602 and changes nothing', async (_, params) => {
    const { widget, root, ready } = connect()
    await ready
    await expect(widget.request('syncTheme', params as { theme: 'dark' })).rejects.toMatchObject({
      code: -32602,
    })
    expect(root.dataset.theme).toBeUndefined()
  })

  test('a method the frame does not serve is refused with 4200', async () => {
    const { widget, ready } = connect()
    await ready
    await expect(
      (widget.request as (method: string, params: unknown) => Promise<unknown>)('signMessage', {}),
    ).rejects.toMatchObject({ code: 4200 })
  })
})

describe('startFrame handlers', () => {
  test.each(Object.keys(Secure.secure.requests))(
    '%s is served: malformed params get -32602, not 4200',
    async (method) => {
      const { widget, ready } = connect()
      await ready
      const send = widget.request as (method: string, params: unknown) => Promise<unknown>
      await expect(send(method, { unexpected: true })).rejects.toMatchObject({ code: -32602 })
    },
  )

  test('an email login through the channel: code, unlock, user, then a signature after approval', async () => {
    const approve = vi.fn(async () => {})
    const context = createTestContext({ requestApproval: approve })
    const { widget, ready } = connect(context)
    await ready
    await expect(widget.request('connectEmail', { email: 'ada@example.com' })).resolves.toEqual({
      action: 'VERIFY_OTP',
    })
    const otp = context.api.codeFor('ada@example.com') ?? ''
    await expect(widget.request('connectOtp', { otp })).resolves.toBeUndefined()
    const user = await widget.request('getUser', {})
    expect(user.address).toBe(context.api.users.get('ada@example.com')?.wallet?.addresses.eip155)
    await expect(widget.request('isConnected', undefined)).resolves.toEqual({ isConnected: true })
    const approved: unknown[] = []
    widget.on('approved', (data) => approved.push(data))
    const approvalId = crypto.randomUUID()
    const signature = await widget.request('rpcRequest', {
      method: 'personal_sign',
      params: ['0x68656c6c6f', user.address],
      origin: 'https://host.example',
      approvalId,
    })
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/)
    expect(approve).toHaveBeenCalledTimes(1)
    // The widget heard of the approval before the signature's answer.
    expect(approved).toEqual([{ approvalId }])
    await expect(widget.request('signOut', undefined)).resolves.toBeUndefined()
    await expect(widget.request('getUser', {})).rejects.toMatchObject({ code: 4100 })
  })

  test("a request the widget cancels stops in the frame: connectDevice's polling ends", async () => {
    const context = createTestContext()
    const { widget, ready } = connect(context)
    await ready
    // A known account on another device: this one must be verified.
    const other = createTestContext({ api: context.api })
    await other.api.loginEmail({ email: 'ada@example.com', deviceId: 'A'.repeat(22) })
    const code = other.api.codeFor('ada@example.com') ?? ''
    const login = await other.api.verifyEmail({
      email: 'ada@example.com',
      otp: code,
      deviceId: 'A'.repeat(22),
    })
    await other.api.putShares(login.token, {
      authShare: 'AQIDBAUGBwgJCgsMDQ4PEBE=',
      recoveryShare: 'AgIDBAUGBwgJCgsMDQ4PEBE=',
      addresses: {
        eip155: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
        solana: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
      },
    })
    await expect(widget.request('connectEmail', { email: 'ada@example.com' })).resolves.toEqual({
      action: 'VERIFY_OTP',
    })
    const controller = new AbortController()
    const waiting = widget.request('connectDevice', undefined, { signal: controller.signal })
    const polls = () => context.api.calls.filter((call) => call.name === 'deviceStatus').length
    await vi.waitFor(() => expect(polls()).toBeGreaterThan(0))
    controller.abort()
    await expect(waiting).rejects.toMatchObject({ message: 'Request was aborted' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const stopped = polls()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(polls()).toBe(stopped)
  })

  test('reload answers first, then reloads', async () => {
    const reload = vi.fn()
    const { widget, ready } = connect(createTestContext({ reload }))
    await ready
    await expect(widget.request('reload', undefined)).resolves.toBeUndefined()
    await vi.waitFor(() => expect(reload).toHaveBeenCalledTimes(1))
  })
})

describe('inv-18 startFrame', () => {
  test('arbitrary params for any method never crash the frame nor reach the API', async () => {
    const context = createTestContext()
    const { widget, ready } = connect(context)
    await ready
    const methods = Object.keys(Secure.secure.requests).filter(
      (method) =>
        ![
          'ping',
          'getSmartAccountEnabledNetworks',
          'connectFarcaster',
          'initSmartAccount',
        ].includes(method),
    )
    const send = widget.request as (method: string, params: unknown) => Promise<unknown>
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods),
        fc.oneof(
          fc.jsonValue(),
          fc.dictionary(
            fc.constantFrom('__proto__', 'constructor', 'email', 'otp', 'uri', 'chainId', 'method'),
            fc.jsonValue(),
          ),
        ),
        async (method, params) => {
          const outcome = await send(method, params).then(
            () => 'ok',
            (error: { code?: unknown }) => error.code,
          )
          // Only well-formed params can get past the parser.
          if (outcome !== -32602) expect(typeof outcome === 'number' || outcome === 'ok').toBe(true)
        },
      ),
      { numRuns: 300 },
    )
    expect(context.api.calls.filter((call) => call.name !== 'rpc')).toEqual([])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
