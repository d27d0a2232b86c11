import { type Hex, verifyMessage } from 'viem'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import { type ApiRequest, deferred, rpcRoute, serveApi, serverError } from '../../test/api.js'
import { account, connectHostWallet, wallet } from '../../test/host.js'
import { hostOrigin, renderWidget } from '../../test/view.js'
import { store } from '../lib/state/store.js'

const statement = 'Sign in to the demo shop.'
const nonce = 'n0nce0f16letters'
const expiresAt = new Date(Date.now() + 600_000).toISOString()

/** The API's sign-in: a nonce, then a session for a message the account signed (checked here). */
function serveSignIn(options: { nonce?: () => unknown; code?: Hex } = {}) {
  return serveApi({
    'POST /v1/': rpcRoute({ eth_chainId: () => '0x1', eth_getCode: () => options.code ?? '0x' }),
    'POST /siwx/nonce': options.nonce ?? (() => ({ nonce, expiresAt })),
    'POST /siwx/sessions': async ({ body }: ApiRequest) => {
      const { message, signature } = body as { message: string; signature: Hex }
      if (!(await verifyMessage({ address: account.address, message, signature })))
        return Response.json({ error: { code: 'bad_signature', message: 'No' } }, { status: 401 })
      return {
        address: account.address,
        chainId: 'eip155:1',
        domain: new URL(hostOrigin).host,
        uri: hostOrigin,
        issuedAt: new Date().toISOString(),
        expirationTime: null,
        expiresAt,
        token: 'a'.repeat(43),
        message,
        signature,
      }
    },
  })
}

beforeAll(async () => {
  serveSignIn()
  await connectHostWallet()
})

afterEach(() => {
  wallet.declines = false
})

const renderSignIn = (required = false) =>
  renderWidget({ history: ['SIWXSignMessage'], siwx: { required, statement } })
const signIn = page.getByRole('button', { name: 'Sign in' })
const authenticating = page.getByRole('status').filter({ hasText: 'Authenticating...' })

describe('SiwxSignMessage', () => {
  test('names the site as the browser reported it, the account, and the site’s statement', async () => {
    serveSignIn()
    await renderSignIn()
    await expect.element(page.getByRole('heading', { name: 'Sign In' })).toBeVisible()
    await expect.element(page.getByText('127.0.0.1:5170 asks you to sign in')).toBeVisible()
    await expect
      .element(
        page.getByText(
          'Sign a message with your wallet to prove you own 0xf3…b92266. It costs nothing and sends no transaction.',
        ),
      )
      .toBeVisible()
    await expect
      .element(page.getByTestId('siwx-origin'))
      .toHaveTextContent(`Requested by ${hostOrigin}`)
    await expect.element(page.getByLabelText('Message from the site')).toHaveTextContent(statement)
    await expect.element(page.getByRole('button', { name: 'Cancel' })).toBeVisible()
    await expect
      .element(page.getByText('This application might not support Smart Accounts'))
      .not.toBeInTheDocument()
  })

  test('warns that the site might not support a smart account', async () => {
    serveSignIn({ code: '0x6080604052' })
    await renderSignIn()
    await expect
      .element(page.getByText('This application might not support Smart Accounts'))
      .toBeVisible()
  })

  test('shows Authenticating... while signing in, then stores the session and closes', async () => {
    const answer = deferred()
    const { callsTo } = serveSignIn({
      nonce: async () => {
        await answer.promise
        return { nonce, expiresAt }
      },
    })
    await renderSignIn()
    await signIn.click()
    await expect.element(authenticating).toBeVisible()
    await expect.element(signIn).toBeDisabled()
    await expect.element(page.getByRole('button', { name: 'Cancel' })).toBeDisabled()
    answer.resolve()
    await expect.poll(() => store.getState().session).not.toBeNull()
    expect(store.getState().open).toBe(false)
    const [request] = callsTo('/siwx/sessions')
    const message = (request?.body as { message?: string } | undefined)?.message
    expect(message).toContain(
      `127.0.0.1:5170 wants you to sign in with your Ethereum account:\n${account.address}\n\n${statement}`,
    )
    expect(message).toContain(`Nonce: ${nonce}`)
  })

  test('says Signature declined when the wallet declines, and keeps the view to try again', async () => {
    serveSignIn()
    wallet.declines = true
    await renderSignIn()
    await signIn.click()
    await expect.element(page.getByRole('alert')).toHaveTextContent('Signature declined')
    await expect.element(signIn).toBeEnabled()
    expect(store.getState().history).toEqual(['SIWXSignMessage'])
    expect(store.getState().session).toBeNull()
  })

  test('Cancel closes the modal when sign-in is optional', async () => {
    serveSignIn()
    await renderSignIn()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => store.getState().open).toBe(false)
    expect(store.getState().connection.status).toBe('connected')
  })

  describe('keyboard', () => {
    test('focuses Sign in on opening; Tab goes to Cancel; Enter on Sign in signs', async () => {
      serveSignIn()
      wallet.declines = true
      await renderSignIn()
      await expect.element(signIn).toHaveFocus()
      await userEvent.keyboard('{Tab}')
      await expect.element(page.getByRole('button', { name: 'Cancel' })).toHaveFocus()
      await userEvent.keyboard('{Shift>}{Tab}{/Shift}')
      await expect.element(signIn).toHaveFocus()
      await userEvent.keyboard('{Enter}')
      await expect.element(page.getByRole('alert')).toHaveTextContent('Signature declined')
    })

    test('while sign-in is required: no Close, Escape does not close, and Cancel reads Disconnect', async () => {
      serveSignIn()
      await renderSignIn(true)
      await expect.element(signIn).toHaveFocus()
      await expect.element(page.getByRole('button', { name: 'Close' })).not.toBeInTheDocument()
      await expect.element(page.getByRole('button', { name: 'Cancel' })).not.toBeInTheDocument()
      await userEvent.keyboard('{Escape}')
      expect(store.getState().open).toBe(true)
      await expect.element(page.getByRole('button', { name: 'Disconnect' })).toBeVisible()
    })
  })

  // Last: a failed start disconnects the wallet (SPEC section 8).
  test('says the start failed, then disconnects and goes back to Connect', async () => {
    serveSignIn({ nonce: serverError })
    await renderSignIn(true)
    await signIn.click()
    await expect.poll(() => store.getState().connection.status).toBe('disconnected')
    expect(store.getState().history).toEqual(['Connect'])
    // The view went with the connection: Connect's toast says why.
    await expect
      .element(page.getByRole('status').filter({ hasText: 'initialize authentication' }))
      .toHaveTextContent('A problem occurred while trying initialize authentication')
  })
})
