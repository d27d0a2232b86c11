import { formatBalance, formatUnits } from '@porthole/chains/Format'
import { debounceDefault } from '@porthole/protocol/Constants'
import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useId, useState } from 'react'
import { input, primaryButton } from '../components/Buttons.js'
import { ErrorText } from '../components/ErrorText.js'
import { useDebouncedValue } from '../hooks/useDebouncedValue.js'
import { useReceiverProfile } from '../hooks/useReceiverProfile.js'
import { useStore } from '../hooks/useStore.js'
import { useTokenBalances } from '../hooks/useTokenBalances.js'
import { nativeBalanceQuery } from '../lib/chains/queries.js'
import { t } from '../lib/i18n.js'
import { router } from '../lib/state/router.js'
import {
  checkSend,
  isValidReceiver,
  parseAmount,
  receiverPatch,
  type SendToken,
} from '../lib/state/sendForm.js'
import { type ConnectionNamespace, caipNetworkIdOf, store } from '../lib/state/store.js'

type Option = { key: string; token: SendToken; balance: bigint }

const invalidAddress = {
  eip155: 'send.invalidAddress',
  solana: 'send.invalidSolanaAddress',
} as const

/** The send form: token, amount and receiver; Preview checks them, then shows the review. */
export function WalletSend() {
  const connection = useStore((state) => state.connection)
  const caipNetworkId = caipNetworkIdOf(connection)
  if (connection.address === null || caipNetworkId === null) return null
  return (
    <SendForm
      address={connection.address}
      caipNetworkId={caipNetworkId}
      namespace={connection.namespace}
    />
  )
}

function SendForm(props: {
  address: string
  caipNetworkId: string
  namespace: ConnectionNamespace
}) {
  const { address, caipNetworkId, namespace } = props
  const send = useStore((state) => state.send)
  const native = useQuery(nativeBalanceQuery(address, caipNetworkId))
  const tokens = useTokenBalances(address, caipNetworkId)
  const [error, setError] = useState<string | null>(null)
  const ids = { token: useId(), amount: useId(), receiver: useId(), error: useId() }
  // The receiver's name, once the address has stayed the same for a moment (the preview shows it).
  useReceiverProfile(useDebouncedValue(send.receiverAddress.trim(), debounceDefault), caipNetworkId)

  const options: Option[] = [
    ...(native.data
      ? [
          {
            key: 'native',
            token: {
              kind: 'native',
              symbol: native.data.symbol,
              decimals: native.data.decimals,
            } as const,
            balance: native.data.value,
          },
        ]
      : []),
    ...(tokens.data ?? []).map((token) => ({
      key: token.address,
      token: {
        kind: 'token',
        address: token.address,
        symbol: token.symbol,
        decimals: token.decimals,
      } as const,
      balance: token.value,
    })),
  ]
  const selectedKey = send.token
    ? send.token.kind === 'native'
      ? 'native'
      : send.token.address
    : ''
  const selected = options.find((option) => option.key === selectedKey)
  const update = (patch: Partial<typeof send>) => {
    setError(null)
    store.setState((state) => ({ send: { ...state.send, ...patch } }))
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const problem =
      checkSend(send, namespace) ??
      (isValidReceiver(send.receiverAddress, namespace) ? null : t(invalidAddress[namespace]))
    if (problem) return setError(problem)
    // A Solana send needs no token (SPEC section 5): it is the native one then.
    const chosen = selected ?? options.find((option) => option.key === 'native')
    if (!chosen) return setError(t('send.invalidAmount'))
    const amount = parseAmount(send.sendTokenAmount, chosen.token.decimals)
    if (amount === null) return setError(t('send.invalidAmount'))
    if (amount > chosen.balance) return setError(t('send.insufficient'))
    if (!selected) update({ token: chosen.token })
    router.navigate('WalletSendPreview')
  }

  return (
    <form
      noValidate
      onSubmit={submit}
      className="flex flex-col gap-3 px-4 pb-4"
      aria-describedby={error ? ids.error : undefined}
    >
      <label htmlFor={ids.token} className="text-xs font-semibold text-muted">
        {t('send.token')}
      </label>
      <select
        id={ids.token}
        className={input}
        value={selectedKey}
        onChange={(event) =>
          update({
            token: options.find((option) => option.key === event.target.value)?.token ?? null,
          })
        }
      >
        <option value="">—</option>
        {options.map((option) => (
          <option key={option.key} value={option.key}>
            {option.token.symbol} (
            {formatBalance({ value: option.balance, decimals: option.token.decimals })})
          </option>
        ))}
      </select>
      <label htmlFor={ids.amount} className="text-xs font-semibold text-muted">
        {t('send.amount')}
      </label>
      <div className="flex gap-2">
        <input
          id={ids.amount}
          className={input}
          inputMode="decimal"
          autoComplete="off"
          placeholder="0.0"
          value={send.sendTokenAmount}
          onChange={(event) => update({ sendTokenAmount: event.target.value })}
        />
        {selected ? (
          <button
            type="button"
            className="rounded-2xl bg-surface-2 px-3 text-sm font-medium hover:bg-surface-3 focus-visible:outline-2 focus-visible:outline-accent"
            onClick={() =>
              update({
                sendTokenAmount: formatUnits(selected.balance, selected.token.decimals),
              })
            }
          >
            {t('send.max')}
          </button>
        ) : null}
      </div>
      <label htmlFor={ids.receiver} className="text-xs font-semibold text-muted">
        {t('send.receiver')}
      </label>
      <input
        id={ids.receiver}
        className={`${input} font-mono`}
        autoComplete="off"
        spellCheck={false}
        placeholder={t(
          namespace === 'solana' ? 'send.receiverPlaceholderSolana' : 'send.receiverPlaceholder',
        )}
        value={send.receiverAddress}
        onChange={(event) => update(receiverPatch(send, event.target.value))}
      />
      {error ? <ErrorText id={ids.error}>{error}</ErrorText> : null}
      <button type="submit" className={primaryButton}>
        {t('send.preview')}
      </button>
    </form>
  )
}
