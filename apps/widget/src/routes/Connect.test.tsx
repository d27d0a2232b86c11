import type { HostWallet } from '@porthole/protocol/Host'
import { describe, expect, test } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import { deferred, serveApi, serverError, walletEntries } from '../../test/api.js'
import { hostOrigin, renderWidget } from '../../test/view.js'
import { store } from '../lib/state/store.js'

const recommended = { count: 412, data: walletEntries(['Alpha', 'Beta', 'Gamma', 'Delta']) }
const rabby: HostWallet = { uuid: 'uuid-rabby', name: 'Rabby', icon: '', rdns: 'io.rabby' }
const frame: HostWallet = { uuid: 'uuid-frame', name: 'Frame', icon: '', rdns: 'sh.frame' }

const list = page.getByRole('list', { name: 'Connect a wallet' })
/** Each row's words as read out: its name and tag (the logo's initial is hidden from assistive tech). */
const rows = () =>
  list
    .getByRole('button')
    .elements()
    .map((row) =>
      Array.from(row.querySelectorAll('span'))
        .filter((span) => span.children.length === 0 && !span.closest('[aria-hidden]'))
        .map((span) => span.textContent)
        .join(' '),
    )
const loading = page.getByRole('status', { name: 'Loading' })

describe('Connect', () => {
  test('lists WalletConnect first, then the 4 recommended wallets and All wallets with the count', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget()
    await expect.element(page.getByRole('heading', { name: 'Connect Wallet' })).toBeVisible()
    await expect.element(list.getByRole('button', { name: 'Delta' })).toBeVisible()
    expect(rows()).toEqual(['WalletConnect QR code', 'Alpha', 'Beta', 'Gamma', 'Delta'])
    const all = page.getByRole('button', { name: 'All wallets' })
    await expect.element(all).toHaveTextContent('412')
    await expect.element(all.getByTitle('412 wallets')).toBeVisible()
    await expect.element(loading).not.toBeInTheDocument()
  })

  test('asks the explorer for the 4 recommended wallets, page 1', async () => {
    const { callsTo } = serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget()
    await expect.element(list.getByRole('button', { name: 'Alpha' })).toBeVisible()
    const params = callsTo('/getWallets').map(({ url }) => Object.fromEntries(url.searchParams))
    expect(params).toEqual([
      expect.objectContaining({ page: '1', entries: '4', st: 'porthole', sv: '4' }),
    ])
  })

  test('tags the recent and installed wallets and lists them before the recommended ones', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget({ hostWallets: [rabby, frame], recent: ['sh.frame'] })
    await expect.element(list.getByRole('button', { name: 'Alpha' })).toBeVisible()
    expect(rows()).toEqual([
      'WalletConnect QR code',
      'Frame Recent',
      'Rabby Installed',
      'Alpha',
      'Beta',
      'Gamma',
      'Delta',
    ])
  })

  test('shows WalletConnect and a loading placeholder while the wallets load', async () => {
    const answer = deferred()
    serveApi({
      'GET /getWallets': async () => {
        await answer.promise
        return recommended
      },
    })
    await renderWidget()
    await expect.element(loading).toBeVisible()
    expect(rows()).toEqual(['WalletConnect QR code'])
    await expect.element(page.getByRole('button', { name: 'All wallets' })).not.toBeInTheDocument()
    answer.resolve()
    await expect.element(loading).not.toBeInTheDocument()
    await expect.element(list.getByRole('button', { name: 'Alpha' })).toBeVisible()
  })

  test('says the wallets could not be loaded, and Retry loads them', async () => {
    let fail = true
    const { callsTo } = serveApi({
      'GET /getWallets': () => (fail ? serverError() : recommended),
    })
    await renderWidget()
    const error = page.getByRole('alert')
    await expect.element(error).toHaveTextContent('Wallets could not be loaded')
    await expect.element(error).toHaveTextContent('Check your connection, then try again.')
    // The query client retries once before the view gives up.
    expect(callsTo('/getWallets')).toHaveLength(2)
    fail = false
    await error.getByRole('button', { name: 'Retry' }).click()
    await expect.element(list.getByRole('button', { name: 'Alpha' })).toBeVisible()
    await expect.element(error).not.toBeInTheDocument()
    expect(callsTo('/getWallets')).toHaveLength(3)
  })

  test('paints the wallets while the host is being verified, marked busy', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget({ verification: 'pending' })
    await expect.element(list.getByRole('button', { name: 'Delta' })).toBeVisible()
    await expect.element(list).toHaveAttribute('aria-busy', 'true')
    store.setState({ verification: 'verified' })
    await expect.element(list).not.toHaveAttribute('aria-busy')
  })

  test('inv-04: a wallet chosen before the check passes connects only once it has', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget({ verification: 'pending' })
    await list.getByRole('button', { name: 'Beta' }).click()
    await list.getByRole('button', { name: 'Alpha' }).click()
    expect(store.getState().history).toEqual(['Connect'])
    expect(store.getState().connecting).toBeNull()
    store.setState({ verification: 'verified' })
    // The last wallet chosen, once.
    await expect
      .poll(() => store.getState().history)
      .toEqual(['Connect', 'ConnectingWalletConnect'])
    expect(store.getState().connecting?.name).toBe('Alpha')
  })

  test('inv-04: a wallet chosen before the check fails is never connected', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget({ verification: 'pending' })
    await list.getByRole('button', { name: 'Alpha' }).click()
    store.setState({ verification: 'unverified', refusedOrigin: hostOrigin })
    await expect.element(page.getByRole('alert')).toHaveTextContent('Unverified domain')
    // A later pass (a Retry) does not bring the old choice back.
    store.setState({ verification: 'verified' })
    await expect.element(list.getByRole('button', { name: 'Alpha' })).toBeVisible()
    expect(store.getState().history).toEqual(['Connect'])
    expect(store.getState().connecting).toBeNull()
  })

  test('turns wallets off on an unverified host and says how to allow it', async () => {
    serveApi({ 'GET /getWallets': () => recommended })
    await renderWidget({ verification: 'unverified', projectId: 'demo-project' })
    const alert = page.getByRole('alert')
    await expect.element(alert).toHaveTextContent('Unverified domain')
    await expect
      .element(alert)
      .toHaveTextContent(
        `This site, ${hostOrigin}, is not on the allowed origins of the project “demo-project”, so wallets are turned off here.`,
      )
    await expect
      .element(alert)
      .toHaveTextContent(`npm run project -- set-origins --id demo-project --origin ${hostOrigin}`)
    await expect.element(list).not.toBeInTheDocument()
  })

  test('offers Try again when the allowed origins could not be read, and shows the wallets once they are', async () => {
    let fail = true
    serveApi({
      'GET /projects/v1/origins': () =>
        fail
          ? serverError()
          : { allowedOrigins: [hostOrigin, ...Array.from(location.ancestorOrigins)] },
      'GET /getWallets': () => recommended,
    })
    await renderWidget({ verification: 'server_error', projectId: 'demo-project' })
    const alert = page.getByRole('alert')
    await expect.element(alert).toHaveTextContent('Service unavailable')
    await expect
      .element(alert)
      .toHaveTextContent(
        'The wallet service had a problem and could not verify this site, so wallets are turned off for now.',
      )
    fail = false
    await alert.getByRole('button', { name: 'Try again' }).click()
    await expect.element(list.getByRole('button', { name: 'Alpha' })).toBeVisible()
    expect(store.getState().verification).toBe('verified')
  })

  describe('keyboard', () => {
    test('focuses the first wallet on opening; Tab goes down the list and wraps to Close', async () => {
      serveApi({ 'GET /getWallets': () => recommended })
      await renderWidget()
      const all = page.getByRole('button', { name: 'All wallets' })
      await expect.element(all).toBeVisible()
      await expect.element(list.getByRole('button', { name: 'WalletConnect' })).toHaveFocus()
      for (const name of ['Alpha', 'Beta', 'Gamma', 'Delta']) {
        await userEvent.keyboard('{Tab}')
        await expect.element(list.getByRole('button', { name })).toHaveFocus()
      }
      await userEvent.keyboard('{Tab}')
      await expect.element(all).toHaveFocus()
      await userEvent.keyboard('{Tab}')
      await expect.element(page.getByRole('button', { name: 'Close' })).toHaveFocus()
      await userEvent.keyboard('{Shift>}{Tab}{/Shift}')
      await expect.element(all).toHaveFocus()
    })

    test('Enter on All wallets opens the All Wallets view', async () => {
      serveApi({
        'GET /getWallets': ({ url }) =>
          url.searchParams.get('entries') === '4' ? recommended : { count: 0, data: [] },
      })
      await renderWidget()
      const all = page.getByRole('button', { name: 'All wallets' })
      await expect.element(all).toBeVisible()
      all.element().focus()
      await userEvent.keyboard('{Enter}')
      await expect.element(page.getByRole('heading', { name: 'All Wallets' })).toBeVisible()
      expect(store.getState().history).toEqual(['Connect', 'AllWallets'])
    })

    test('Escape closes the modal', async () => {
      serveApi({ 'GET /getWallets': () => recommended })
      await renderWidget()
      await expect.element(list.getByRole('button', { name: 'Alpha' })).toBeVisible()
      await userEvent.keyboard('{Escape}')
      await expect.poll(() => store.getState().open).toBe(false)
      await expect.element(page.getByRole('dialog')).toHaveAttribute('data-open', 'false')
    })
  })
})
