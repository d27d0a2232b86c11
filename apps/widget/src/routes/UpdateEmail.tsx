import { useQuery } from '@tanstack/react-query'
import { type FormEvent, useEffect, useId, useState, useSyncExternalStore } from 'react'
import { input, outlineButton, primaryButton } from '../components/Buttons.js'
import { CodeField } from '../components/CodeField.js'
import { ErrorText } from '../components/ErrorText.js'
import { Skeleton } from '../components/Skeleton.js'
import { useCodeCheck, useMailWait } from '../hooks/useMailedCode.js'
import { useStore } from '../hooks/useStore.js'
import { t } from '../lib/i18n.js'
import { embeddedConnectorId } from '../lib/secure/approval.js'
import {
  currentEmail,
  emailUpdateWait,
  startEmailUpdate,
  verifyUpdatePrimary,
  verifyUpdateSecondary,
} from '../lib/secure/updateEmail.js'
import { router } from '../lib/state/router.js'
import { createStore, store } from '../lib/state/store.js'
import { showToast } from '../lib/state/toast.js'
import { messageOf } from '../lib/walletErrors.js'
import { displayEmail } from './emailDisplay.js'

/** The account's email as the secure frame knows it, asked again each time the view opens. */
const currentEmailQuery = {
  queryKey: ['embeddedEmail'],
  queryFn: async () => (await currentEmail()) ?? null,
  staleTime: 0,
}

/** Change email, for a connected email wallet only (a host may open any view by name). */
export function UpdateEmailWallet() {
  const embedded = useStore(
    (state) =>
      state.connection.status === 'connected' &&
      state.connection.connectorId === embeddedConnectorId,
  )
  return embedded ? <NewEmailForm /> : null
}

/**
 * The new address as typed, the last attempt's error, and whether one is on
 * its way. Kept outside the form: while the change waits for the approval
 * window, ApproveTransaction replaces this view, and the form that comes back
 * is a new one, which must still show what was typed and why it stopped.
 */
const draft = createStore({ email: '', error: '', busy: false })
const readDraft = () => draft.getState()

/**
 * The new address; Continue asks for the change: the visitor approves it in
 * the approval window (ApproveTransaction meanwhile), then the first code is
 * mailed (to the current address).
 */
function NewEmailForm() {
  const current = useQuery(currentEmailQuery)
  const { error, busy } = useSyncExternalStore(draft.subscribe, readDraft)
  const [email, setEmail] = useState(
    () => readDraft().email || store.getState().emailUpdate?.next || '',
  )
  const [wait, refreshWait] = useMailWait(emailUpdateWait)
  const id = useId()
  // Leaving the form forgets the draft, unless the change is on its way (the approval shows).
  useEffect(
    () => () => {
      if (!readDraft().busy) draft.setState({ email: '', error: '' })
    },
    [],
  )

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (busy) return
    const typed = email
    draft.setState({ email: typed, error: '', busy: true })
    const known = current.data ?? null
    startEmailUpdate(typed, known ?? undefined)
      .then((action) => {
        draft.setState({ email: '', error: '', busy: false })
        store.setState({ emailUpdate: { current: known, next: typed.trim() } })
        router.navigate(
          action === 'VERIFY_PRIMARY_OTP' ? 'UpdateEmailPrimaryOtp' : 'UpdateEmailSecondaryOtp',
        )
      })
      .catch((reason: unknown) => {
        draft.setState({ email: typed, error: messageOf(reason), busy: false })
        refreshWait()
      })
  }

  // An account with no email (a social or Farcaster login) has none to change: adding one
  // would take only a code from the new address, a new way in that its owner never proved.
  if (current.isSuccess && current.data === null)
    return <p className="px-4 pb-4 text-center text-sm text-muted">{t('updateEmail.none')}</p>
  return (
    <form className="flex flex-col gap-3 px-4 pb-4" onSubmit={submit} noValidate>
      <p className="text-center text-sm text-muted" aria-live="polite">
        {current.isPending ? (
          <Skeleton className="inline-block h-4 w-48 rounded" />
        ) : current.data ? (
          t('updateEmail.current', { email: displayEmail(current.data) })
        ) : current.isError ? (
          messageOf(current.error)
        ) : null}
      </p>
      <label className="text-xs font-semibold text-muted" htmlFor={`${id}-email`}>
        {t('updateEmail.newLabel')}
      </label>
      <input
        id={`${id}-email`}
        type="email"
        autoComplete="email"
        placeholder={t('email.placeholder')}
        className={input}
        value={email}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => setEmail(event.target.value)}
      />
      {error ? <ErrorText id={`${id}-error`}>{error}</ErrorText> : null}
      {wait > 0 && !error ? (
        <p role="status" className="text-center text-sm text-muted">
          {t('updateEmail.wait', { seconds: wait })}
        </p>
      ) : null}
      <button
        type="submit"
        className={primaryButton}
        disabled={busy || email.trim() === '' || current.isPending || wait > 0}
      >
        {t('email.continue')}
      </button>
    </form>
  )
}

/** A step's code form: the code, Continue, and what to do after it. */
function UpdateCodeForm(props: {
  sentTo: string
  verify(code: string): Promise<void>
  resend?: () => Promise<unknown>
}) {
  const { sentTo, verify, resend } = props
  const [code, setCode] = useState('')
  const [wait, refreshWait] = useMailWait(emailUpdateWait)
  const { error, setError, busy, check } = useCodeCheck(verify)
  const id = useId()

  return (
    <form
      className="flex flex-col gap-3 px-4 pb-4"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        check(code)
      }}
    >
      <p className="text-center text-sm text-muted">{sentTo}</p>
      <CodeField
        id={`${id}-code`}
        value={code}
        error={error}
        busy={busy}
        onChange={setCode}
        onComplete={check}
      />
      {resend ? (
        <button
          type="button"
          className={outlineButton}
          disabled={wait > 0}
          onClick={() => {
            setError('')
            resend().then(refreshWait, (reason: unknown) => {
              setError(messageOf(reason))
              refreshWait()
            })
          }}
        >
          {wait > 0 ? t('email.resendIn', { seconds: wait }) : t('email.resend')}
        </button>
      ) : (
        <button
          type="button"
          className={outlineButton}
          onClick={() => {
            router.reset('Account')
            router.navigate('UpdateEmailWallet')
          }}
        >
          {t('updateEmail.startOver')}
        </button>
      )}
    </form>
  )
}

/** The code mailed to the current address; then the new address gets its own. */
export function UpdateEmailPrimaryOtp() {
  const update = useStore((state) => state.emailUpdate)
  if (!update) return null
  return (
    <UpdateCodeForm
      sentTo={t('updateEmail.primarySent', { email: displayEmail(update.current ?? '') })}
      verify={async (code) => {
        await verifyUpdatePrimary(code)
        router.navigate('UpdateEmailSecondaryOtp')
      }}
      resend={() => startEmailUpdate(update.next, update.current ?? undefined)}
    />
  )
}

/** The code mailed to the new address: the change is done; back to Account. */
export function UpdateEmailSecondaryOtp() {
  const update = useStore((state) => state.emailUpdate)
  if (!update) return null
  return (
    <UpdateCodeForm
      sentTo={t('updateEmail.secondarySent', { email: displayEmail(update.next) })}
      verify={async (code) => {
        const email = await verifyUpdateSecondary(code)
        store.setState({ emailUpdate: null })
        showToast(t('updateEmail.done', { email }), 'success')
        router.reset('Account')
      }}
    />
  )
}
