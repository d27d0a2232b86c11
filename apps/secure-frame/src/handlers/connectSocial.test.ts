import { describe, expect, test } from 'vitest'
import { memoryApiUrl } from '../../test/memoryApi.js'
import { createCall, createTestContext } from '../../test/testContext.js'
import { connectFarcaster, maxPendingFarcasterLogins } from './connectFarcaster.js'
import { connectSocial, notDoneUriMessage, readDoneUri } from './connectSocial.js'
import { getSocialRedirectUri, maxPendingStates } from './getSocialRedirectUri.js'

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

/** The answer of a login that signed in (not one the account's email must decide first). */
function signedIn(result: Awaited<ReturnType<typeof connectSocial>>) {
  if (!('user' in result)) throw new Error(`The login was not signed in: ${result.action}`)
  return result
}

describe('connectSocial', () => {
  const done = (state: string, claim = 'C'.repeat(43), base = memoryApiUrl) =>
    `${base}/auth/v1/social/done?state=${state}&claim=${claim}`
  const socialResults = (context: ReturnType<typeof createTestContext>) =>
    context.api.calls.filter((entry) => entry.name === 'socialResult')

  test("takes the done page's URL, shows its claim to the API, then unlocks and answers the user", async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const doneUri = context.api.completeSocial(stateOf(uri), 'ada@example.com')
    const { user } = signedIn(await connectSocial({ uri: doneUri }, context, createCall()))
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
    expect(socialResults(context)[0]?.args[0]).toEqual({
      state: stateOf(uri),
      deviceId: await context.storage.getDeviceId(),
      claim: new URL(doneUri).searchParams.get('claim'),
    })
  })

  test('polls while the API still says pending', async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const state = stateOf(uri)
    const login = connectSocial({ uri: done(state) }, context, createCall())
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(socialResults(context).length).toBeGreaterThan(1)
    context.api.completeSocial(state, 'ada@example.com')
    // The claim in the URL is not the one the API made: refused (4100), no session.
    await expect(login).rejects.toMatchObject({
      code: 4100,
      data: { status: 403, code: 'claim_mismatch' },
    })
    expect(await context.storage.getToken()).toBeUndefined()
  })

  test.each([
    [
      "the provider's authorization URL (the old form)",
      (state: string) => `https://google.example/authorize?client_id=porthole&state=${state}`,
      notDoneUriMessage,
    ],
    [
      'another origin',
      (state: string) => done(state, 'C'.repeat(43), 'https://evil.example'),
      notDoneUriMessage,
    ],
    [
      'the API over another scheme',
      (state: string) => done(state, 'C'.repeat(43), 'https://api.test'),
      notDoneUriMessage,
    ],
    [
      'another path',
      (state: string) =>
        `${memoryApiUrl}/auth/v1/social/callback?state=${state}&claim=${'C'.repeat(43)}`,
      notDoneUriMessage,
    ],
    [
      'credentials in the URL',
      (state: string) => done(state).replace('http://', 'http://user:pass@'),
      notDoneUriMessage,
    ],
    ['another parameter', (state: string) => `${done(state)}&next=x`, notDoneUriMessage],
    [
      'no claim',
      (state: string) => `${memoryApiUrl}/auth/v1/social/done?state=${state}`,
      'The sign-in’s claim is missing or malformed; start it again.',
    ],
    [
      'a malformed claim',
      (state: string) => done(state, 'short'),
      'The sign-in’s claim is missing or malformed; start it again.',
    ],
    [
      'a state this frame never made',
      () => done('AAAAAAAAAAAAAAAAAAAAAA'),
      'This login was not started here; start it again.',
    ],
    [
      'no state',
      () => `${memoryApiUrl}/auth/v1/social/done?claim=${'C'.repeat(43)}`,
      'This login was not started here; start it again.',
    ],
    ['no URL at all', () => 'not a url', notDoneUriMessage],
  ])('refuses %s (-32602), asks the API nothing and spends no state', async (_, make, message) => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const state = stateOf(uri)
    await expect(connectSocial({ uri: make(state) }, context, createCall())).rejects.toMatchObject({
      code: -32602,
      message,
    })
    expect(socialResults(context)).toEqual([])
    // The login started here still completes with its own done URL.
    const doneUri = context.api.completeSocial(state, 'ada@example.com')
    await expect(connectSocial({ uri: doneUri }, context, createCall())).resolves.toMatchObject({
      user: { email: 'ada@example.com' },
    })
  })

  test('an API under a path: the done page is under it too', () => {
    expect(
      readDoneUri(
        `https://example.com/porthole/auth/v1/social/done?state=${'S'.repeat(22)}&claim=${'C'.repeat(43)}`,
        'https://example.com/porthole/',
      ),
    ).toEqual({ state: 'S'.repeat(22), claim: 'C'.repeat(43) })
    expect(() =>
      readDoneUri(
        `https://example.com/auth/v1/social/done?state=${'S'.repeat(22)}&claim=${'C'.repeat(43)}`,
        'https://example.com/porthole',
      ),
    ).toThrow(notDoneUriMessage)
  })

  test('a state is used once', async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const doneUri = context.api.completeSocial(stateOf(uri), 'ada@example.com')
    await connectSocial({ uri: doneUri }, context, createCall())
    await expect(connectSocial({ uri: doneUri }, context, createCall())).rejects.toMatchObject({
      code: -32602,
    })
  })

  test('stops polling when the request is cancelled', async () => {
    const context = createTestContext()
    const { uri } = await getSocialRedirectUri({ provider: 'google' }, context)
    const controller = new AbortController()
    const login = connectSocial({ uri: done(stateOf(uri)) }, context, createCall(controller.signal))
    await new Promise((resolve) => setTimeout(resolve, 15))
    controller.abort()
    await expect(login).rejects.toMatchObject({ message: 'Request was aborted' })
    expect(await context.storage.getToken()).toBeUndefined()
  })
})

describe('connectFarcaster', () => {
  test('binds a fresh one-time state and this device to a relay link, collected by connectSocial', async () => {
    const context = createTestContext()
    const { url } = await connectFarcaster(undefined, context)
    const again = await connectFarcaster(undefined, context)
    expect(again.url).not.toBe(url)
    const [start] = context.api.calls
    if (start === undefined) throw new Error('farcasterStart was not called')
    const { state, deviceId } = start.args[0] as { state: string; deviceId: string }
    expect(start.name).toBe('farcasterStart')
    expect(state).toMatch(/^[\w-]{22,}$/)
    expect(deviceId).toBe(await context.storage.getDeviceId())

    const login = connectSocial({ uri: url }, context, createCall())
    await new Promise((resolve) => setTimeout(resolve, 20))
    context.api.completeFarcaster(url, 77)
    const { user } = signedIn(await login)
    expect(user.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(context.api.calls.filter((c) => c.name === 'farcasterResult')[0]?.args[0]).toEqual({
      state,
      deviceId,
    })
    expect(context.api.calls.some((c) => c.name === 'socialResult')).toBe(false)
  })

  test(`keeps at most ${maxPendingFarcasterLogins} pending logins, dropping the oldest`, async () => {
    const context = createTestContext()
    const { url: oldest } = await connectFarcaster(undefined, context)
    for (let i = 0; i < maxPendingFarcasterLogins; i++) await connectFarcaster(undefined, context)
    await expect(connectSocial({ uri: oldest }, context, createCall())).rejects.toMatchObject({
      code: -32602,
    })
  })

  test('getSocialRedirectUri still refuses farcaster (4200): connectFarcaster starts it', async () => {
    await expect(
      getSocialRedirectUri({ provider: 'farcaster' }, createTestContext()),
    ).rejects.toMatchObject({ code: 4200 })
  })
})
