/**
 * Unlocking the user's wallet after a login (DESIGN 4): gets the auth share
 * from the API and makes sure this device holds a share that rebuilds the
 * user's addresses with it.
 *
 * - No wallet yet (404 `no_wallet`): new entropy, split 2-of-3; the auth and
 *   recovery shares are PUT with the addresses, and only once the API has
 *   them is the device share stored here. A 409 `wallet_exists` (the answer
 *   to an earlier PUT was lost) is recovered like a new device.
 * - A wallet and a device share here that rebuilds its addresses: done.
 * - A wallet and no usable device share (a new device, cleared storage): the
 *   recovery share (released only to a verified device) is combined with the
 *   auth share; if they rebuild the addresses, it becomes this device's share.
 *
 * The device share and the entropy never leave the frame (SECURITY.md 11).
 */
import type { Addresses } from '@porthole/protocol/Embedded'
import { type Api, isApiError } from '../lib/api.js'
import { WalletMismatchError } from '../lib/errors.js'
import {
  combineShares,
  createEntropy,
  isSameWallet,
  splitEntropy,
  toAddresses,
  zero,
} from './keys.js'
import type { Storage } from './storage.js'

export type UnlockParameters = {
  api: Pick<Api, 'getShares' | 'putShares'>
  storage: Pick<Storage, 'getDeviceShare' | 'setDeviceShare'>
  token: string
  userId: string
}

export type Unlocked = {
  addresses: Addresses
  /** The auth share, kept in the frame's memory for signing. */
  authShare: string
  /** How this device got its share: made here, already held, or recovered. */
  via: 'created' | 'device' | 'recovery'
}

/** The addresses two shares rebuild, or `undefined` when they do not combine. */
async function addressesOf(a: string, b: string): Promise<Addresses | undefined> {
  let entropy: Uint8Array | undefined
  try {
    entropy = await combineShares(a, b)
    return toAddresses(entropy)
  } catch {
    return undefined
  } finally {
    zero(entropy)
  }
}

export async function unlock(parameters: UnlockParameters): Promise<Unlocked> {
  const { api, storage, token, userId } = parameters
  let shares: Awaited<ReturnType<typeof api.getShares>>
  try {
    shares = await api.getShares(token)
  } catch (error) {
    if (isApiError(error, 404, 'no_wallet')) return create(parameters)
    throw error
  }
  const deviceShare = await storage.getDeviceShare(userId)
  if (deviceShare) {
    const addresses = await addressesOf(deviceShare, shares.authShare)
    if (addresses && isSameWallet(addresses, shares.addresses))
      return { addresses: shares.addresses, authShare: shares.authShare, via: 'device' }
  }
  return recover(parameters)
}

/** A new device: the recovery share becomes this device's share, if it rebuilds the addresses. */
async function recover({ api, storage, token, userId }: UnlockParameters): Promise<Unlocked> {
  const shares = await api.getShares(token, { recovery: true })
  if (!shares.recoveryShare) throw new WalletMismatchError('The recovery share was not released')
  const addresses = await addressesOf(shares.authShare, shares.recoveryShare)
  if (!addresses || !isSameWallet(addresses, shares.addresses)) throw new WalletMismatchError()
  await storage.setDeviceShare(userId, shares.recoveryShare)
  return { addresses: shares.addresses, authShare: shares.authShare, via: 'recovery' }
}

async function create(parameters: UnlockParameters): Promise<Unlocked> {
  const { api, storage, token, userId } = parameters
  const entropy = createEntropy()
  let shares: Awaited<ReturnType<typeof splitEntropy>>
  let addresses: Addresses
  try {
    shares = await splitEntropy(entropy)
    addresses = toAddresses(entropy)
  } finally {
    zero(entropy)
  }
  try {
    await api.putShares(token, {
      authShare: shares.auth,
      recoveryShare: shares.recovery,
      addresses,
    })
  } catch (error) {
    // Our earlier PUT went through but its answer was lost: that wallet is the user's.
    if (isApiError(error, 409, 'wallet_exists')) return recover(parameters)
    throw error
  }
  await storage.setDeviceShare(userId, shares.device)
  return { addresses, authShare: shares.auth, via: 'created' }
}
