import { truncate } from '@porthole/chains/Address'
import { formatBalance } from '@porthole/chains/Format'
import { getByCaipNetworkId } from '@porthole/chains/Networks'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { outlineButton, primaryButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { SendReceiver } from '../components/SendReceiver.js'
import { useReceiverProfile } from '../hooks/useReceiverProfile.js'
import { useStore } from '../hooks/useStore.js'
import { loadChain } from '../lib/chains/index.js'
import { track } from '../lib/data/analytics.js'
import { addPending, markMined, removePending } from '../lib/data/pending.js'
import { priceOf, pricesQuery } from '../lib/data/prices.js'
import { TransactionRevertedError } from '../lib/errors.js'
import { formatUsd, usdValue } from '../lib/fiat.js'
import { t } from '../lib/i18n.js'
import { router } from '../lib/state/router.js'
import { parseAmount } from '../lib/state/sendForm.js'
import { caipNetworkIdOf, type SendToken, store } from '../lib/state/store.js'
import { showToast } from '../lib/state/toast.js'
import { isUserRejection, messageOf } from '../lib/walletErrors.js'

type Phase = 'review' | 'sending' | 'confirming'

/** A send not confirmed in time: viem's (EVM), the Solana adapter's. */
const timeoutErrors = ['WaitForTransactionReceiptTimeoutError', 'SendTimeoutError']

/** The send, reviewed: from, to, amount and network; Send asks the wallet, then waits for the receipt. */
export function WalletSendPreview() {
  const send = useStore((state) => state.send)
  const connection = useStore((state) => state.connection)
  const { address, namespace } = connection
  const caipNetworkId = caipNetworkIdOf(connection)
  const queryClient = useQueryClient()
  const [phase, setPhase] = useState<Phase>('review')
  const [error, setError] = useState<string | null>(null)
  const token = send.token
  const amount = token ? parseAmount(send.sendTokenAmount, token.decimals) : null
  // The receiver's name, if the form had not resolved it yet.
  useReceiverProfile(send.receiverAddress.trim(), caipNetworkId ?? '')
  const prices = useQuery({ ...pricesQuery(caipNetworkId ?? ''), enabled: caipNetworkId !== null })
  if (!token || amount === null || address === null || caipNetworkId === null) return null
  const network = getByCaipNetworkId(caipNetworkId)
  const receiver = send.receiverAddress.trim()

  const confirm = async () => {
    setError(null)
    setPhase('sending')
    store.setState((state) => ({ send: { ...state.send, loading: true } }))
    try {
      const chain = await loadChain(namespace)
      const id = await chain.send({ token, amount, receiver, caipNetworkId })
      // Pending until its receipt (Account and Activity show it, a reload keeps it).
      const evm = namespace === 'eip155'
      if (evm)
        addPending({
          hash: id,
          caipNetworkId,
          from: address,
          to: receiver,
          amount: amount.toString(),
          symbol: token.symbol,
          decimals: token.decimals,
          sentAt: Date.now(),
        })
      setPhase('confirming')
      const status = await chain.waitForSend(id, caipNetworkId)
      if (evm) {
        markMined([id])
        removePending(address, caipNetworkId, [id])
        void queryClient.invalidateQueries({ queryKey: ['transactions', caipNetworkId] })
      }
      if (status !== 'success') throw new TransactionRevertedError()
      await queryClient.invalidateQueries({ queryKey: ['balance'] })
      showToast(t('toast.sent'), 'success')
      void track('SEND_SUCCESS', { network: caipNetworkId, token: token.symbol })
      router.reset('Account')
    } catch (reason) {
      setPhase('review')
      void track('SEND_ERROR', {
        network: caipNetworkId,
        token: token.symbol,
        rejected: isUserRejection(reason),
      })
      setError(
        isUserRejection(reason)
          ? t('send.rejected')
          : timeoutErrors.includes((reason as { name?: string }).name ?? '')
            ? t('send.timeout')
            : t('send.failed', { message: messageOf(reason) }),
      )
    } finally {
      store.setState((state) => ({ send: { ...state.send, loading: false } }))
    }
  }

  // The amount's value at the network's price; no price, no fiat value.
  const fiat = usdValue(
    { value: amount, decimals: token.decimals },
    priceOf(prices.data, token.kind === 'native' ? null : token.address),
  )
  const rows = [
    [t('send.amount'), <AmountValue key="amount" amount={amount} token={token} fiat={fiat} />],
    [t('send.from'), truncate(address)],
    [
      t('send.to'),
      <SendReceiver
        key="to"
        address={namespace === 'eip155' && !receiver.startsWith('0x') ? `0x${receiver}` : receiver}
        name={send.receiverProfileName}
        imageUrl={send.receiverProfileImageUrl}
      />,
    ],
    [t('send.network'), network?.name ?? caipNetworkId],
  ] as const

  return (
    <section className="flex flex-col gap-3 px-4 pb-4">
      <dl className="flex flex-col gap-2 rounded-2xl bg-surface-2 p-3 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="flex justify-between gap-3">
            <dt className="text-muted">{label}</dt>
            <dd className="truncate font-medium">{value}</dd>
          </div>
        ))}
      </dl>
      {phase !== 'review' ? (
        <p role="status" className="text-center text-sm text-muted">
          {phase === 'sending' ? t('send.sending') : t('send.confirming')}
        </p>
      ) : null}
      {error ? <ErrorText>{error}</ErrorText> : null}
      <button
        type="button"
        className={primaryButton}
        disabled={phase !== 'review'}
        onClick={() => void confirm()}
      >
        {phase === 'review' ? t('send.send') : t('send.sending')}
      </button>
      <button
        type="button"
        className={outlineButton}
        disabled={phase !== 'review'}
        onClick={() => router.back()}
      >
        {t('modal.back')}
      </button>
    </section>
  )
}

/** The amount to send, in full precision, and its US dollar value when it has a price. */
function AmountValue(props: { amount: bigint; token: SendToken; fiat: number | undefined }) {
  const { amount, token, fiat } = props
  return (
    <>
      {`${formatBalance({ value: amount, decimals: token.decimals }, token.decimals)} ${token.symbol}`}
      {fiat === undefined ? null : (
        <span className="font-normal text-muted" data-testid="send-amount-fiat">
          {` (${formatUsd(fiat)})`}
        </span>
      )}
    </>
  )
}
