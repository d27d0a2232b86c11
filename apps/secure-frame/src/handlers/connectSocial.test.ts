import { describe, expect, test } from 'vitest'
import { createTestContext } from '../internal/testContext.js'
import { connectFarcaster, maxPendingFarcasterLogins } from './connectFarcaster.js'
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
  test('binds a fresh one-time state and this device to a relay link, collected by connectSocial', async () => {
    const context = createTestContext()
    const { url } = await connectFarcaster(context)
    const again = await connectFarcaster(context)
    expect(again.url).not.toBe(url)
    const [start] = context.api.calls
    if (start === undefined) throw new Error('farcasterStart was not called')
    const { state, deviceId } = start.args[0] as { state: string; deviceId: string }
    expect(start.name).toBe('farcasterStart')
    expect(state).toMatch(/^[\w-]{22,}$/)
    expect(deviceId).toBe(await context.storage.getDeviceId())

    const login = connectSocial({ uri: url }, context, call())
    await new Promise((resolve) => setTimeout(resolve, 20))
    context.api.completeFarcaster(url, 77)
    const { user } = await login
    expect(user.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(context.api.calls.filter((c) => c.name === 'farcasterResult')[0]?.args[0]).toEqual({
      state,
      deviceId,
    })
    expect(context.api.calls.some((c) => c.name === 'socialResult')).toBe(false)
  })

  test(`keeps at most ${maxPendingFarcasterLogins} pending logins, dropping the oldest`, async () => {
    const context = createTestContext()
    const { url: oldest } = await connectFarcaster(context)
    for (let i = 0; i < maxPendingFarcasterLogins; i++) await connectFarcaster(context)
    await expect(connectSocial({ uri: oldest }, context, call())).rejects.toMatchObject({
      code: -32602,
    })
  })

  test('getSocialRedirectUri still refuses farcaster (4200): connectFarcaster starts it', async () => {
    await expect(
      getSocialRedirectUri({ provider: 'farcaster' }, createTestContext()),
    ).rejects.toMatchObject({ code: 4200 })
  })
})
