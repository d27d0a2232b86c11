/**
 * The only place keys exist: for one signature, the entropy is rebuilt in
 * memory from the device share (stored here) and the auth share (in memory,
 * or fetched again for the session), the key for one account is derived, the
 * signature made, and every byte buffer zeroed (DESIGN 4, SECURITY.md 11).
 * A key that does not give the user's address is never used.
 */

import { bytesToHex } from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { WalletMismatchError } from '../lib/errors.js'
import {
  combineShares,
  deriveEd25519,
  deriveSecp256k1,
  toEvmAddress,
  toSeed,
  toSolanaAddress,
  zero,
} from './keys.js'
import { type Context, withSession } from './session.js'
import type { CachedUser } from './storage.js'
import { unlock } from './unlock.js'

/** The seed of the logged-in user's wallet, for `use`; zeroed when `use` settles. */
async function withSeed<result>(
  context: Context,
  use: (seed: Uint8Array, user: CachedUser) => Promise<result>,
): Promise<result> {
  return withSession(context, async (token, user) => {
    let authShare =
      context.memory.unlocked?.userId === user.id ? context.memory.unlocked.authShare : undefined
    let deviceShare = await context.storage.getDeviceShare(user.id)
    if (!authShare || !deviceShare) {
      const unlocked = await unlock({
        api: context.api,
        storage: context.storage,
        token,
        userId: user.id,
      })
      authShare = unlocked.authShare
      context.memory.unlocked = { userId: user.id, authShare }
      deviceShare = await context.storage.getDeviceShare(user.id)
      if (!deviceShare) throw new WalletMismatchError('This device holds no key share')
    }
    const entropy = await combineShares(deviceShare, authShare)
    const seed = toSeed(entropy)
    zero(entropy)
    try {
      return await use(seed, user)
    } finally {
      zero(seed)
    }
  })
}

/** Runs `sign` with the user's EVM account (m/44'/60'/0'/0/0). */
export function withEvmAccount<result>(
  context: Context,
  sign: (account: PrivateKeyAccount) => Promise<result>,
): Promise<result> {
  return withSeed(context, async (seed, user) => {
    const key = deriveSecp256k1(seed)
    try {
      if (toEvmAddress(key).toLowerCase() !== user.addresses.eip155.toLowerCase())
        throw new WalletMismatchError()
      return await sign(privateKeyToAccount(bytesToHex(key)))
    } finally {
      zero(key)
    }
  })
}

/** Runs `sign` with the user's Solana ed25519 private key (m/44'/501'/0'/0'). */
export function withSolanaKey<result>(
  context: Context,
  sign: (privateKey: Uint8Array) => Promise<result> | result,
): Promise<result> {
  return withSeed(context, async (seed, user) => {
    const { key, chainCode } = deriveEd25519(seed)
    try {
      if (toSolanaAddress(key) !== user.addresses.solana) throw new WalletMismatchError()
      return await sign(key)
    } finally {
      zero(key, chainCode)
    }
  })
}
