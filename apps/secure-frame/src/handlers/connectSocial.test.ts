import { describe, expect, test } from 'vitest'
import { createTestContext } from '../internal/testContext.js'
import { connectFarcaster } from './connectFarcaster.js'
import { connectSocial } from './connectSocial.js'
import { getSocialRedirectUri, maxPendingStates } from './getSocialRedirectUri.js'

const call = (signal = new AbortController().signal) => ({
  signal,
  origin: 'http://widget.localhost:5171',
})
const stateOf = (uri: string) => new URL(uri).searchParams.get('state') ?? ''

describe('getSocialRedirectUri', () => {
  test('binds a fresh one-time state (128+ bits) and this device to the provider URL', async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const again = await getSocialRedirectUri({ provider: 'google' }, context)
    const state = stateOf(uri)
    expect(state).toMatch(/^[\w-]{22,}$/)
    expect(stateOf(again.uri)).not.toBe(state)
    expect(context.api.calls[0]).toEqual({
      name: 'socialStart',
      args: [{ provider: 'google', deviceId: await context.storage.getDeviceId(), state }],
    })
  })

  test(`keeps at most ${maxPendingStates} pending states`, async () => {
    const context = createTestContext()
    for (let i = 0; i < maxPendingStates + 3; i++)
      await getSocialRedirectUri({ provider: 'github' }, context)
    expect(context.memory.socialStates.size).toBe(maxPendingStates)
  })
})

describe('connectSocial', () => {
  test('polls until the provider has answered, then unlocks and answers the user', async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const login = connectSocial({ uri }, context, call())
    await new Promise((resolve) => setTimeout(resolve, 20))
    context.api.completeSocial(stateOf(uri), 'ada@example.com')
    const { user } = await login
    const addresses = context.api.users.get('ada@example.com')?.wallet?.addresses
    expect(user).toEqual({
      email: 'ada@example.com',
      address: addresses?.eip155,
      chainId: 'eip155:1',
      accounts: [{ address: addresses?.eip155, type: 'eoa' }],
      preferredAccountType: 'eoa',
      smartAccountDeployed: false,
    })
    expect(await context.storage.getToken()).toBeDefined()
  })

  test.each([
    [
      'a state this frame never made',
      'https://google.example/authorize?state=AAAAAAAAAAAAAAAAAAAAAA',
    ],
    ['no state', 'https://google.example/authorize'],
  ])('refuses a uri with %s and asks the API nothing', async (_, uri) => {
    const context = createTestContext()
    await expect(connectSocial({ uri }, context, call())).rejects.toMatchObject({ code: -32602 })
    expect(context.api.calls).toEqual([])
  })

  test('a state is used once', async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    context.api.completeSocial(stateOf(uri), 'ada@example.com')
    await connectSocial({ uri }, context, call())
    await expect(connectSocial({ uri }, context, call())).rejects.toMatchObject({ code: -32602 })
  })

  test('stops polling when the request is cancelled', async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const controller = new AbortController()
    const login = connectSocial({ uri }, context, call(controller.signal))
    await new Promise((resolve) => setTimeout(resolve, 15))
    controller.abort()
    await expect(login).rejects.toMatchObject({ message: 'Request was aborted' })
    expect(await context.storage.getToken()).toBeUndefined()
  })
})

describe('connectFarcaster', () => {
  test('is not available yet (4200)', () => {
    expect(() => connectFarcaster()).toThrow(
      expect.objectContaining({ code: 4200, message: 'Farcaster login is not available yet' }),
    )
  })
})
