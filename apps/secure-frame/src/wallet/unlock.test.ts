import { describe, expect, test } from 'vitest'
import { createMemoryApi, type MemoryApi } from '../../test/memoryApi.js'
import { ApiError } from '../lib/api.js'
import { WalletMismatchError } from '../lib/errors.js'
import { combineShares, createEntropy, isSameWallet, splitEntropy, toAddresses } from './keys.js'
import { createMemoryBackend, createStorage, type Storage } from './storage.js'
import { unlock } from './unlock.js'

/** A logged-in user on the in-memory API: a session for `deviceId` (verified by mail when new). */
async function session(api: MemoryApi, email = 'ada@example.com', deviceId = 'device-a'.repeat(3)) {
  await api.loginEmail({ email, deviceId })
  if (api.approvalMailed(email, deviceId)) api.approveDevice(email, deviceId)
  const code = api.codeFor(email) ?? ''
  return api.verifyEmail({ email, otp: code, deviceId })
}

function device(): Storage {
  return createStorage(createMemoryBackend())
}

/** Every string the API was sent, to look for secrets. */
function sent(api: MemoryApi): string {
  return JSON.stringify(api.calls)
}

describe('inv-11 unlock', () => {
  test('a new wallet: the API gets the auth and recovery shares and the addresses, never the device share', async () => {
    const api = createMemoryApi()
    const storage = device()
    const { token, user } = await session(api)
    const unlocked = await unlock({ api, storage, token, userId: user.id })
    expect(unlocked.via).toBe('created')

    const deviceShare = (await storage.getDeviceShare(user.id)) ?? ''
    const put = api.calls.find((call) => call.name === 'putShares')
    expect(put?.args[1]).toEqual({
      authShare: unlocked.authShare,
      recoveryShare: expect.any(String),
      addresses: unlocked.addresses,
    })
    expect(sent(api)).not.toContain(deviceShare)
    // The device share and the auth share rebuild the addresses the API was given.
    const entropy = await combineShares(deviceShare, unlocked.authShare)
    expect(toAddresses(entropy)).toEqual(unlocked.addresses)
  })

  test('the device share is stored only once the API has the other two', async () => {
    const api = createMemoryApi()
    const storage = device()
    const { token, user } = await session(api)
    api.failNext(
      'putShares',
      new ApiError(503, 'database_unavailable', 'The database is unavailable'),
    )
    await expect(unlock({ api, storage, token, userId: user.id })).rejects.toMatchObject({
      status: 503,
    })
    expect(await storage.getDeviceShare(user.id)).toBeUndefined()
    expect(api.users.get('ada@example.com')?.wallet).toBeUndefined()
  })
})

describe('unlock', () => {
  test('an existing wallet on the same device uses the device share: no recovery share is asked for', async () => {
    const api = createMemoryApi()
    const storage = device()
    const first = await session(api)
    const created = await unlock({ api, storage, token: first.token, userId: first.user.id })
    const again = await session(api)
    const calls = api.calls.length
    const unlocked = await unlock({ api, storage, token: again.token, userId: again.user.id })
    expect(unlocked).toEqual({ ...created, via: 'device' })
    const after = api.calls.slice(calls)
    expect(after.map((call) => call.name)).toEqual(['getShares'])
    expect(after[0]?.args[1]).toBeUndefined()
  })

  test('a new device rebuilds the wallet from the auth and recovery shares and keeps the recovery share', async () => {
    const api = createMemoryApi()
    const first = await session(api, 'ada@example.com', 'device-a'.repeat(3))
    const created = await unlock({
      api,
      storage: device(),
      token: first.token,
      userId: first.user.id,
    })

    const other = device()
    const second = await session(api, 'ada@example.com', 'device-b'.repeat(3))
    const unlocked = await unlock({
      api,
      storage: other,
      token: second.token,
      userId: second.user.id,
    })
    expect(unlocked.via).toBe('recovery')
    expect(unlocked.addresses).toEqual(created.addresses)
    const recoveryShare = api.users.get('ada@example.com')?.wallet?.recoveryShare
    expect(await other.getDeviceShare(second.user.id)).toBe(recoveryShare)
    // And from then on the device share is enough.
    const third = await unlock({ api, storage: other, token: second.token, userId: second.user.id })
    expect(third.via).toBe('device')
  })

  test('a device share of another wallet is not used: the wallet is recovered instead', async () => {
    const api = createMemoryApi()
    const storage = device()
    const { token, user } = await session(api)
    const created = await unlock({ api, storage, token, userId: user.id })
    const stranger = await splitEntropy(createEntropy())
    await storage.setDeviceShare(user.id, stranger.device)
    const unlocked = await unlock({ api, storage, token, userId: user.id })
    expect(unlocked.via).toBe('recovery')
    expect(unlocked.addresses).toEqual(created.addresses)
  })

  test('409 wallet_exists (our earlier PUT went through) recovers that wallet', async () => {
    const api = createMemoryApi()
    const storage = device()
    const { token, user } = await session(api)
    const created = await unlock({ api, storage: device(), token, userId: user.id })
    // A read that missed the wallet: this unlock tries to create one and gets 409.
    api.staleNextGetShares()
    const unlocked = await unlock({ api, storage, token, userId: user.id })
    expect(unlocked.via).toBe('recovery')
    expect(unlocked.addresses).toEqual(created.addresses)
    expect(api.calls.filter((call) => call.name === 'putShares')).toHaveLength(2)
    expect(api.users.get('ada@example.com')?.wallet?.addresses).toEqual(created.addresses)
  })

  test('inv-19 a PUT whose answer was lost is picked up by the retry: same wallet, no second one', async () => {
    const api = createMemoryApi()
    const storage = device()
    const { token, user } = await session(api)
    api.failNext('putShares', new ApiError(0, 'unreachable', 'The server could not be reached'), {
      after: true,
    })
    await expect(unlock({ api, storage, token, userId: user.id })).rejects.toBeInstanceOf(ApiError)
    const stored = api.users.get('ada@example.com')?.wallet
    expect(stored).toBeDefined()
    expect(await storage.getDeviceShare(user.id)).toBeUndefined()

    const unlocked = await unlock({ api, storage, token, userId: user.id })
    expect(unlocked.via).toBe('recovery')
    expect(unlocked.addresses).toEqual(stored?.addresses)
  })

  test('two frames creating the same wallet at once end with one wallet and the same addresses', async () => {
    const api = createMemoryApi()
    const { token, user } = await session(api)
    const [a, b] = [device(), device()]
    const [first, second] = await Promise.all([
      unlock({ api, storage: a, token, userId: user.id }),
      unlock({ api, storage: b, token, userId: user.id }),
    ])
    expect(first.addresses).toEqual(second.addresses)
    expect(api.users.get('ada@example.com')?.wallet?.addresses).toEqual(first.addresses)
  })

  test('shares that do not rebuild the addresses the API holds are refused and nothing is kept', async () => {
    const api = createMemoryApi()
    const { token, user } = await session(api)
    await unlock({ api, storage: device(), token, userId: user.id })
    const wallet = api.users.get('ada@example.com')?.wallet
    if (!wallet) throw new Error('no wallet')
    wallet.addresses = toAddresses(createEntropy())
    const storage = device()
    await expect(unlock({ api, storage, token, userId: user.id })).rejects.toBeInstanceOf(
      WalletMismatchError,
    )
    expect(await storage.getDeviceShare(user.id)).toBeUndefined()
  })

  test('an API error other than no_wallet is passed on as is', async () => {
    const api = createMemoryApi()
    const { token, user } = await session(api)
    api.failNext(
      'getShares',
      new ApiError(429, 'rate_limited', 'Please try again after 12 seconds'),
    )
    await expect(unlock({ api, storage: device(), token, userId: user.id })).rejects.toMatchObject({
      message: 'Please try again after 12 seconds',
    })
    expect(api.calls.map((call) => call.name)).not.toContain('putShares')
  })
})

describe('inv-16 unlock', () => {
  test('cleared frame storage loses no funds: logging in again restores the same addresses', async () => {
    const api = createMemoryApi()
    let storage = device()
    const first = await session(api)
    const created = await unlock({ api, storage, token: first.token, userId: first.user.id })
    storage = device() // the partitioned storage was cleared
    const again = await session(api)
    const unlocked = await unlock({ api, storage, token: again.token, userId: again.user.id })
    expect(isSameWallet(unlocked.addresses, created.addresses)).toBe(true)
  })
})
