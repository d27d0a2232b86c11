/**
 * The embedded wallet on Solana Local, from the host page: an email login,
 * `standard:connect` (its Solana account), then `solana_signAndSendTransaction`
 * through the host's provider, the widget and the secure frame, sent through
 * the API's RPC proxy to the stack's Solana node (litesvm). The receiver's balance on the node moves by
 * exactly the amount shown, and only after Approve in the approval window.
 */
import { expect, type Page, test } from '@playwright/test'
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import {
  freshSolanaAddress,
  solanaBalance,
  solanaRpc,
  solanaTransferNow,
} from '@porthole/dev-stack/solanaTransfers'
import { solanaUrl } from '@porthole/dev-stack/stack'
import {
  approveInWindow,
  freshEmail,
  loginWithEmail,
  pendingOutcome,
  primaryButton,
  secureFrame,
  settled,
  startRequest,
} from './embeddedFixtures.ts'
import { openHost } from './fixtures.ts'

/**
 * The embedded wallet's Solana address, as a Standard app on the host gets
 * it: `standard:connect` connects the logged-in embedded wallet's Solana
 * account, with no wallet to pick.
 */
async function embeddedSolanaAddress(page: Page): Promise<string> {
  await startRequest(page, 'standard:connect', {})
  const outcome = await pendingOutcome(page)
  expect(outcome.error).toBeUndefined()
  const [address] = (outcome.result as { accounts: string[] }).accounts
  expect(address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
  return address as string
}

/** Funds `address` with `lamports` from a Solana dev account of this worker's. */
async function fund(address: string, lamports: number) {
  const funder = devSolanaKeypair(5 + (test.info().parallelIndex % 5))
  const transaction = await solanaTransferNow(solanaUrl, {
    from: funder.publicKey.toBase58(),
    to: address,
    lamports,
    signer: funder,
  })
  const sent = await solanaRpc(solanaUrl, 'sendTransaction', [transaction, { encoding: 'base64' }])
  expect(sent.error).toBeUndefined()
}

test.describe('embedded wallet on Solana Local', () => {
  test('signs and sends a SOL transfer only after Approve; the receiver gets exactly the amount', async ({
    page,
  }) => {
    await openHost(page)
    await loginWithEmail(page, freshEmail('solsend'))
    const wallet = await embeddedSolanaAddress(page)
    await fund(wallet, 1_000_000_000)
    const receiver = freshSolanaAddress()
    const transaction = await solanaTransferNow(solanaUrl, {
      from: wallet,
      to: receiver,
      lamports: 250_000_000,
    })

    await startRequest(page, 'solana_signAndSendTransaction', {
      transaction,
      sendOptions: { preflightCommitment: 'confirmed' },
    })
    await expect(secureFrame(page).getByText('0.25 SOL')).toBeVisible()
    await expect(secureFrame(page).getByText('Solana Local')).toBeVisible()
    await page.waitForTimeout(1_000)
    expect(await settled(page)).toBe(false)
    expect(await solanaBalance(solanaUrl, receiver)).toBe(0)

    await approveInWindow(page)
    const outcome = await pendingOutcome(page)
    expect(outcome.error).toBeUndefined()
    const { signature } = outcome.result as { signature: string }
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    const { result } = await solanaRpc(solanaUrl, 'getSignatureStatuses', [[signature]])
    expect(result).toMatchObject({ value: [{ err: null }] })
    expect(await solanaBalance(solanaUrl, receiver)).toBe(250_000_000)
    expect(await solanaBalance(solanaUrl, wallet)).toBe(1_000_000_000 - 250_000_000 - 5000)
  })

  test('a bad preflight commitment is refused with -32602 and no approval', async ({ page }) => {
    await openHost(page)
    await loginWithEmail(page, freshEmail('solbad'))
    const wallet = await embeddedSolanaAddress(page)
    const receiver = freshSolanaAddress()
    const transaction = await solanaTransferNow(solanaUrl, {
      from: wallet,
      to: receiver,
      lamports: 1000,
    })
    const pages = page.context().pages().length
    await startRequest(page, 'solana_signAndSendTransaction', {
      transaction,
      sendOptions: { preflightCommitment: 'fastest' },
    })
    const outcome = await pendingOutcome(page)
    expect(outcome.error).toEqual({
      code: -32602,
      message:
        'The preflight commitment must be one of processed, confirmed, finalized, recent, single, singleGossip, root or max.',
    })
    await expect(primaryButton(page)).toHaveCount(0)
    expect(page.context().pages()).toHaveLength(pages)
    expect(await solanaBalance(solanaUrl, receiver)).toBe(0)
  })
})
