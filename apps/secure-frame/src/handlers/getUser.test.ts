import { describe, expect, test } from 'vitest'
import { createTestContext, loginWithEmail } from '../../test/testContext.js'
import { connectEmail } from './connectEmail.js'
import { connectOtp } from './connectOtp.js'
import { getChainId } from './getChainId.js'
import { getSmartAccountEnabledNetworks } from './getSmartAccountEnabledNetworks.js'
import { getUser } from './getUser.js'
import { initSmartAccount } from './initSmartAccount.js'
import { setPreferredAccount } from './setPreferredAccount.js'
import { switchNetwork } from './switchNetwork.js'

const email = 'ada@example.com'
const solana = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

async function loggedIn() {
  const context = createTestContext()
  await loginWithEmail(context, email, { connectEmail, connectOtp })
  const addresses = context.api.users.get(email)?.wallet?.addresses
  if (!addresses) throw new Error('no wallet')
  return { context, addresses }
}

describe('getUser', () => {
  test('answers the EOA on the network in use, eip155:1 by default', async () => {
    const { context, addresses } = await loggedIn()
    await expect(getUser({}, context)).resolves.toEqual({
      email,
      address: addresses.eip155,
      chainId: 'eip155:1',
      accounts: [{ address: addresses.eip155, type: 'eoa' }],
      preferredAccountType: 'eoa',
      smartAccountDeployed: false,
    })
  })

  test('with a chainId, answers on it and makes it the network in use', async () => {
    const { context, addresses } = await loggedIn()
    await expect(getUser({ chainId: solana }, context)).resolves.toMatchObject({
      address: addresses.solana,
      chainId: solana,
    })
    await expect(getChainId(undefined, context)).resolves.toEqual({ chainId: solana })
  })

  test('is 4100 when nobody is logged in', async () => {
    await expect(getUser({}, createTestContext())).rejects.toMatchObject({ code: 4100 })
  })
})

describe('switchNetwork', () => {
  test.each(['eip155:137', 'eip155:31337', solana])(
    'switches to %s and remembers it',
    async (chainId) => {
      const context = createTestContext()
      await expect(switchNetwork({ chainId }, context)).resolves.toEqual({ chainId })
      // A reloaded frame over the same storage.
      const reloaded = createTestContext({ api: context.api, backend: context.backend })
      await expect(getChainId(undefined, reloaded)).resolves.toEqual({ chainId })
    },
  )

  test.each(['bip122:000000000019d6689c085ae165831e93', 'cosmos:cosmoshub-4', 'eip155:0'])(
    'refuses %s with 4902',
    async (chainId) => {
      const context = createTestContext()
      await expect(switchNetwork({ chainId }, context)).rejects.toMatchObject({
        code: 4902,
        message: 'Unsupported chain',
      })
      await expect(getChainId(undefined, context)).resolves.toEqual({ chainId: 'eip155:1' })
    },
  )
})

describe('smart accounts', () => {
  test('setPreferredAccount answers the EOA whatever is asked', async () => {
    const { context, addresses } = await loggedIn()
    await expect(setPreferredAccount({ type: 'smartAccount' }, context)).resolves.toEqual({
      type: 'eoa',
      address: addresses.eip155,
    })
  })

  test('initSmartAccount is not available yet (4200)', () => {
    expect(() => initSmartAccount()).toThrow(
      expect.objectContaining({ code: 4200, message: 'Smart accounts are not available yet' }),
    )
  })

  test('no network has smart accounts yet', () => {
    expect(getSmartAccountEnabledNetworks()).toEqual({ smartAccountEnabledNetworks: [] })
  })
})
