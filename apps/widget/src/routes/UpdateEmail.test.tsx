import { beforeAll, describe, expect, test } from 'vitest'
import { page } from 'vitest/browser'
import { rpcRoute, serveApi } from '../../test/api.js'
import { connectHostWallet } from '../../test/host.js'
import { renderWidget } from '../../test/view.js'

beforeAll(async () => {
  serveApi({ 'POST /v1/': rpcRoute({ eth_chainId: () => '0x1' }) })
  await connectHostWallet()
})

describe('Change email', () => {
  test('is for email wallets only: a host that opens it by name over another wallet gets nothing', async () => {
    serveApi({ 'POST /v1/': rpcRoute({ eth_chainId: () => '0x1' }) })
    await renderWidget({ history: ['Account', 'UpdateEmailWallet'] })
    await expect.element(page.getByRole('heading', { name: 'Change Email' })).toBeVisible()
    await expect.element(page.getByLabelText('New email')).not.toBeInTheDocument()
  })

  test('the code steps show nothing without a change in progress', async () => {
    serveApi({ 'POST /v1/': rpcRoute({ eth_chainId: () => '0x1' }) })
    await renderWidget({ history: ['Account', 'UpdateEmailPrimaryOtp'] })
    await expect.element(page.getByRole('heading', { name: 'Confirm Current Email' })).toBeVisible()
    await expect.element(page.getByLabelText('Code from the email')).not.toBeInTheDocument()
  })
})
