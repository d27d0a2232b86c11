/**
 * A Solana wallet of the host page (the Wallet Standard test wallet, keys in
 * Node) in the widget, on the stack's local Solana node (issue 13): it
 * connects from Connect, Account shows its SOL and the dev token PTT, it sends
 * SOL and PTT (the node's balances move by exactly the amounts), signs a
 * message that verifies, and signs in (SIWX) with a session the API's backend
 * check accepts.
 */
import { verify } from 'node:crypto'
import { expect, type Page, test } from '@playwright/test'
import { formatBalance } from '@porthole/chains/Format'
import * as Solana from '@porthole/chains/Solana'
import { devSolanaKeypair } from '@porthole/dev-stack/solanaKeys'
import {
  installSolanaTestWallet,
  type SolanaTestWallet,
} from '@porthole/dev-stack/solanaTestWallet'
import { devSolanaToken, ports, solanaUrl } from '@porthole/dev-stack/stack'
import { base58 } from '@scure/base'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import { fillSend, hostState, openHost, openModal, widget } from './fixtures.ts'

const node = new Connection(solanaUrl, 'confirmed')
const mint = new PublicKey(devSolanaToken.address)

const tokenAmount = async (owner: PublicKey): Promise<bigint> => {
  const account = getAssociatedTokenAddressSync(mint, owner)
  const info = await node.getTokenAccountBalance(account).catch(() => null)
  return BigInt(info?.value.amount ?? 0)
}

/** The page with the test wallet (its own dev account, so specs running beside it keep theirs). */
async function setup(page: Page, siwx?: 'required'): Promise<SolanaTestWallet> {
  const wallet = await installSolanaTestWallet(page, {
    keypair: devSolanaKeypair(5),
    name: 'Solana Test Wallet',
  })
  await openHost(page, siwx ? { siwx } : {})
  return wallet
}

async function connect(page: Page, wallet: SolanaTestWallet) {
  await openModal(page)
  await widget(page)
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('button', { name: new RegExp(wallet.name) })
    .click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')
}

test('connects, shows SOL and PTT, sends both (exact amounts on the node), signs a message that verifies', async ({
  page,
}) => {
  const wallet = await setup(page)
  await connect(page, wallet)
  expect(await hostState(page)).toMatchObject({
    caipAddress: `${Solana.localnet.caipNetworkId}:${wallet.address}`,
    chainId: Solana.localnet.caipNetworkId,
    connector: wallet.name,
  })
  const owner = new PublicKey(wallet.address)
  const frame = widget(page)

  await openModal(page)
  await expect(frame.getByTestId('account-address')).toHaveAttribute('title', wallet.address)
  const lamports = BigInt(await node.getBalance(owner))
  await expect(frame.getByTestId('account-balance')).toHaveText(
    `${formatBalance({ value: lamports, decimals: 9 })} SOL`,
  )
  const pttHeld = await tokenAmount(owner)
  await expect(frame.getByRole('list', { name: 'Tokens' })).toContainText(
    `PTT${formatBalance({ value: pttHeld, decimals: devSolanaToken.decimals })}`,
  )

  const receiver = Keypair.generate().publicKey
  const send = async (token: RegExp, amount: string) => {
    await fillSend(page, { token, amount, receiver: receiver.toBase58() })
    await frame.getByRole('button', { name: 'Send', exact: true }).click()
    await expect(
      frame.getByRole('status').filter({ hasText: 'Transaction confirmed' }),
    ).toBeVisible({
      timeout: 30_000,
    })
  }
  await send(/^SOL/, '0.25')
  expect(BigInt(await node.getBalance(receiver))).toBe(250_000_000n)
  await send(/^PTT/, '12.5')
  expect(await tokenAmount(receiver)).toBe(12_500_000n)
  expect(pttHeld - (await tokenAmount(owner))).toBe(12_500_000n)

  // Activity: the SOL sent, asked of the node (Solana history is address-scoped).
  await openModal(page)
  await frame.getByRole('button', { name: /^Activity/ }).click()
  const sent = frame.getByTestId('activity-row').filter({ hasText: '−0.25 SOL' })
  await expect(sent).toHaveCount(1)
  await expect(sent).toContainText(`To ${receiver.toBase58().slice(0, 4)}`)
  await frame.getByRole('button', { name: 'Back' }).click()

  await openModal(page)
  await frame.getByRole('button', { name: 'Sign message' }).click()
  await frame.getByRole('textbox', { name: 'Message' }).fill('Hello from Porthole')
  await frame.getByRole('button', { name: 'Sign', exact: true }).click()
  const signature = base58.decode(
    await frame.getByRole('textbox', { name: 'Signature' }).inputValue(),
  )
  const publicKey = {
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), owner.toBytes()]),
    format: 'der' as const,
    type: 'spki' as const,
  }
  expect(verify(null, Buffer.from('Hello from Porthole'), publicKey, signature)).toBe(true)
})

test("sign-in (SIWX): the Solana account signs in; the API's backend check accepts the session", async ({
  page,
}) => {
  const wallet = await setup(page, 'required')
  await connect(page, wallet)
  await expect.poll(async () => (await hostState(page)).view).toBe('SIWXSignMessage')
  await widget(page).getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(async () => (await hostState(page)).session).not.toBeNull()
  const session = (await hostState(page)).session as { data: { token: string }; message: string }
  expect(session.message).toContain('wants you to sign in with your Solana account:')
  const check = await fetch(
    `http://127.0.0.1:${ports.api}/siwx/sessions/check?${new URLSearchParams({
      projectId: 'porthole-dev',
      origin: new URL(page.url()).origin,
    })}`,
    { headers: { authorization: `Bearer ${session.data.token}` } },
  )
  expect(check.status).toBe(200)
  expect(await check.json()).toMatchObject({
    address: wallet.address,
    chainId: Solana.localnet.caipNetworkId,
  })
})

test("declines: Connect says 'Connection declined' and Try again connects; a declined signature is 4001 at the host", async ({
  page,
}) => {
  const wallet = await setup(page)
  wallet.setBehaviour('reject')
  await openModal(page)
  const frame = widget(page)
  await frame
    .getByRole('list', { name: 'Connect a wallet' })
    .getByRole('button', { name: new RegExp(wallet.name) })
    .click()
  await expect(frame.getByRole('alert')).toContainText('Connection declined')
  expect((await hostState(page)).status).toBe('disconnected')
  wallet.setBehaviour('approve')
  await frame.getByRole('button', { name: 'Try again' }).click()
  await expect.poll(async () => (await hostState(page)).status).toBe('connected')

  wallet.setBehaviour('reject')
  const message = base58.encode(new TextEncoder().encode('decline me'))
  const outcome = await page.evaluate(
    ({ message, pubkey }) =>
      (
        window as unknown as {
          Wallet: { provider: { request(args: unknown): Promise<unknown> } }
        }
      ).Wallet.provider
        .request({ method: 'solana_signMessage', params: { message, pubkey } })
        .then(
          () => 'signed',
          (error: { code: number; message: string }) => ({
            code: error.code,
            message: error.message,
          }),
        ),
    { message, pubkey: wallet.address },
  )
  expect(outcome).toEqual({ code: 4001, message: 'User rejected the request.' })
})
