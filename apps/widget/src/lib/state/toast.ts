/** One short message at the bottom of the card, gone after a few seconds. */
import { copyText } from '../clipboard.js'
import { t } from '../i18n.js'
import { store } from './store.js'

export type Toast = { id: number; message: string; tone: 'success' | 'error' | 'info' }

let nextId = 1
let timer: ReturnType<typeof setTimeout> | undefined

export const toastDuration = 4000

export function showToast(message: string, tone: Toast['tone'] = 'info'): void {
  clearTimeout(timer)
  const id = nextId++
  store.setState({ toast: { id, message, tone } })
  timer = setTimeout(() => dismissToast(id), toastDuration)
}

export function dismissToast(id?: number): void {
  store.setState((state) => (id === undefined || state.toast?.id === id ? { toast: null } : {}))
}

/** Copies the connected address and says so (Account, Receive). */
export function copyAddress(address: string): void {
  void copyText(address).then((ok) =>
    showToast(ok ? t('account.copied') : t('toast.copyFailed'), ok ? 'success' : 'error'),
  )
}
