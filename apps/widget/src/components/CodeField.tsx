import { t } from '../lib/i18n.js'
import { input, primaryButton } from './Buttons.js'
import { ErrorText } from './ErrorText.js'

/**
 * A mailed six-digit code: digits only, and `onComplete` as soon as the sixth
 * is typed (or pasted); under it, `error` (named by the field), 'Checking the
 * code…' while `busy`, and Continue (the form's submit).
 */
export function CodeField(props: {
  id: string
  value: string
  error: string
  busy: boolean
  onChange(digits: string): void
  onComplete(digits: string): void
}) {
  const { id, value, error, busy, onChange, onComplete } = props
  const errorId = `${id}-error`
  return (
    <>
      <label className="sr-only" htmlFor={id}>
        {t('email.codeLabel')}
      </label>
      <input
        id={id}
        name="otp"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        pattern="[0-9]*"
        placeholder="000000"
        className={`${input} text-center font-mono text-lg tracking-[0.5em]`}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(event) => {
          const digits = event.target.value.replace(/\D/g, '').slice(0, 6)
          onChange(digits)
          if (digits.length === 6) onComplete(digits)
        }}
      />
      {error ? <ErrorText id={errorId}>{error}</ErrorText> : null}
      {busy ? (
        <p role="status" className="text-center text-sm text-muted">
          {t('email.checking')}
        </p>
      ) : null}
      <button type="submit" className={primaryButton} disabled={busy || value.length !== 6}>
        {t('email.continue')}
      </button>
    </>
  )
}
