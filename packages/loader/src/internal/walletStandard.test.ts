import { describe, expect, test, vi } from 'vitest'
import { usePage } from '../../test/page.js'
import { watchWalletStandard } from './walletStandard.js'

usePage()

const registerWallet = 'wallet-standard:register-wallet'
const appReady = 'wallet-standard:app-ready'
const dispatch = (type: string, detail: unknown) => dispatchEvent(new CustomEvent(type, { detail }))

describe('watchWalletStandard', () => {
  test('loads nothing on a page without the Wallet Standard', () => {
    const load = vi.fn()
    watchWalletStandard(load)
    dispatch('eip6963:announceProvider', {})
    expect(load).not.toHaveBeenCalled()
  })

  test('loads for a wallet registered before it ran (it answers app-ready)', () => {
    addEventListener(appReady, (event) => {
      ;(event as CustomEvent<{ register(wallet: unknown): unknown }>).detail.register({})
    })
    const load = vi.fn()
    watchWalletStandard(load)
    expect(load).toHaveBeenCalled()
  })

  test('loads for an app listening already (it answers register-wallet)', () => {
    addEventListener(registerWallet, (event) => {
      ;(event as CustomEvent<(api: unknown) => void>).detail({ register: () => () => {} })
    })
    const load = vi.fn()
    watchWalletStandard(load)
    expect(load).toHaveBeenCalled()
  })

  test.each([
    ['a wallet registering later', registerWallet],
    ['an app starting later', appReady],
  ])('loads for %s, and not for its own events', (_, type) => {
    const load = vi.fn()
    watchWalletStandard(load)
    expect(load).not.toHaveBeenCalled()
    dispatch(type, () => {})
    expect(load).toHaveBeenCalled()
  })

  test('stops listening', () => {
    const load = vi.fn()
    const stop = watchWalletStandard(load)
    stop()
    dispatch(registerWallet, () => {})
    dispatch(appReady, { register() {} })
    expect(load).not.toHaveBeenCalled()
  })
})
