/**
 * inv-04 (issue 14): a wallet chosen while the host's origin is checked is
 * connected once the check passes. What the visitor did after choosing it
 * (closing the modal, starting another login) must still count: the choice
 * is the visitor's, and a dismissed one must not start a connection later.
 */
import type { HostWallet } from '@porthole/protocol/Host'
import { describe, expect, test } from 'vitest'
import { page } from 'vitest/browser'
import { serveApi, walletEntries } from '../../test/api.js'
import { renderWidget } from '../../test/view.js'
import { router } from '../lib/state/router.js'
import { store } from '../lib/state/store.js'

const recommended = { count: 4, data: walletEntries(['Alpha', 'Beta', 'Gamma', 'Delta']) }
const rabby: HostWallet = { uuid: 'uuid-rabby', name: 'Rabby', icon: '', rdns: 'io.rabby' }
const list = page.getByRole('list', { name: 'Connect a wallet' })

describe('inv-04 a wallet chosen while the check runs, then dismissed', () => {
  test('closing the modal drops the choice: no connection starts when the check passes', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget({ verification: 'pending', hostWallets: [rabby] })
    await list.getByRole('button', { name: /Rabby/ }).click()
    // The visitor changes their mind: Escape, the backdrop or Close.
    router.close()
    expect(store.getState().open).toBe(false)
    store.setState({ verification: 'verified' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Wanted: still Connect, nothing being connected (no wallet prompt behind a closed modal).
    expect(store.getState().history).toEqual(['Connect'])
    expect(store.getState().connecting).toBeNull()
  })

  test('a view the visitor moved on to is not replaced by the old choice', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget({ verification: 'pending' })
    await list.getByRole('button', { name: 'Alpha' }).click()
    // Another flow started meanwhile (e.g. the email login's code view).
    router.navigate('EmailVerifyOtp')
    store.setState({ verification: 'verified' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(store.getState().history).toEqual(['Connect', 'EmailVerifyOtp'])
  })
})
