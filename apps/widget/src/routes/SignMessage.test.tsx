import { type Hex, verifyMessage } from 'viem'
import { beforeAll, describe, expect, test } from 'vitest'
import { page, userEvent } from 'vitest/browser'
import { rpcRoute, serveApi } from '../../test/api.js'
import { account, connectHostWallet, wallet } from '../../test/host.js'
import { renderWidget } from '../../test/view.js'

beforeAll(async () => {
  serveApi({ 'POST /v1/': rpcRoute({ eth_chainId: () => '0x1' }) })
  await connectHostWallet()
})

const message = page.getByRole('textbox', { name: 'Message' })
const signature = page.getByRole('textbox', { name: 'Signature' })
const sign = page.getByRole('button', { name: 'Sign', exact: true })
const renderSign = () => renderWidget({ history: ['Account', 'SignMessage'] })

describe('SignMessage', () => {
  test('an empty message asks for one and asks the wallet nothing', async () => {
    await renderSign()
    await sign.click()
    await expect.element(page.getByRole('alert')).toHaveTextContent('Enter a message to sign.')
    await expect.element(signature).not.toBeInTheDocument()
  })

  test('signs with the connected wallet and shows a signature that verifies', async () => {
    await renderSign()
    await message.fill('Hello from the shop')
    await sign.click()
    await expect.element(signature).toBeVisible()
    const value = (signature.element() as HTMLTextAreaElement).value as Hex
    expect(
      await verifyMessage({
        address: account.address,
        message: 'Hello from the shop',
        signature: value,
      }),
    ).toBe(true)
    await expect.element(page.getByRole('button', { name: 'Copy signature' })).toBeVisible()
  })

  test('a signature the wallet declines says so, and Sign works again', async () => {
    wallet.declines = true
    try {
      await renderSign()
      await message.fill('No thanks')
      await sign.click()
      await expect
        .element(page.getByRole('alert'))
        .toHaveTextContent('You declined the signature in your wallet.')
      await expect.element(sign).toBeEnabled()
      await expect.element(signature).not.toBeInTheDocument()
    } finally {
      wallet.declines = false
    }
  })

  test('Tab goes from the message to Sign, and Enter signs', async () => {
    await renderSign()
    await message.fill('By keyboard')
    await userEvent.tab()
    await expect.element(sign).toHaveFocus()
    await userEvent.keyboard('{Enter}')
    await expect.element(signature).toBeVisible()
  })
})
