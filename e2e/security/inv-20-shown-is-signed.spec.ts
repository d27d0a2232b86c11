/**
 * SECURITY.md 20 in the browser, with an email wallet on the dev stack: a
 * host that puts an ERC-20 transfer in `input` (not `data`) gets an approval
 * that shows that transfer, recipient and amount in the token's own units
 * (the dev token PTT, 6 decimals, read from the chain), not a harmless
 * zero-value call. The request is read from the secure frame and rejected:
 * nothing is signed.
 */
import { expect, test } from '@playwright/test'
import { anvil, anvilUrl, localChain, workerKey } from '@porthole/dev-stack/anvil'
import { testTokenAbi } from '@porthole/dev-stack/contracts'
import { devToken } from '@porthole/dev-stack/stack'
import { createWalletClient, encodeFunctionData, erc20Abi, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import {
  freshEmail,
  loginWithEmail,
  pendingOutcome,
  rejectButton,
  secureFrame,
  startRequest,
} from '../embeddedFixtures.ts'
import { openHost } from '../fixtures.ts'

const balanceOf = (owner: `0x${string}`) =>
  anvil.readContract({
    address: devToken.address,
    abi: testTokenAbi,
    functionName: 'balanceOf',
    args: [owner],
  })

test.describe('inv-20 what you see is what you sign', () => {
  test('an ERC-20 transfer sent in `input` is shown as that transfer, in PTT', async ({ page }) => {
    await openHost(page)
    const address = await loginWithEmail(page, freshEmail('inv20'))
    // The visitor holds 1.25 PTT (the dev token: anyone may mint).
    const minter = createWalletClient({
      account: privateKeyToAccount(workerKey(test.info().parallelIndex)),
      chain: localChain,
      transport: http(anvilUrl),
    })
    const minted = await minter.writeContract({
      address: devToken.address,
      abi: testTokenAbi,
      functionName: 'mint',
      args: [address, 1_250_000n],
    })
    await anvil.waitForTransactionReceipt({ hash: minted })

    // The host asks for the whole balance to go to its own address, the call in `input`.
    const attacker = privateKeyToAccount(generatePrivateKey()).address
    const input = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [attacker, 1_250_000n],
    })
    await startRequest(page, 'eth_sendTransaction', [
      { from: address, to: devToken.address, input },
    ])

    const frame = secureFrame(page)
    await expect(frame.getByText(`Transfer 1.25 PTT to ${attacker}`)).toBeVisible()
    await expect(frame.getByText('1.25 PTT', { exact: true })).toBeVisible()
    await expect(frame.getByText(attacker, { exact: true })).toBeVisible()
    await expect(frame.getByText(/^[0-9.]+ ETH$/).last()).toBeVisible()

    await rejectButton(page).click()
    expect((await pendingOutcome(page)).error?.code).toBe(4001)
    expect(await balanceOf(attacker)).toBe(0n)
    expect(await balanceOf(address)).toBe(1_250_000n)
  })
})
