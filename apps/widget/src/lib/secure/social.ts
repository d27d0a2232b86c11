/**
 * Social login (google, github, apple, facebook, x, discord): a popup opened
 * synchronously in the click handler (SECURITY.md 15, so no popup blocker
 * stops it), sent to the provider's authorization URL that the secure frame
 * gets from the API. The provider redirects the popup to the API, which
 * finishes the code exchange and posts its last URL (state plus a one-time
 * claim) to this window only; the widget hands it to the secure frame, which
 * collects the session from the API with it. The widget never sees a code or
 * a token: it only learns that the frame is logged in, then connects (the
 * caller's `connect`: the chain adapter's embedded wallet).
 */
import type { SocialProvider } from '@porthole/protocol/Api'
import { SocialDoneMessage, socialDonePath } from '@porthole/protocol/Embedded'
import { apiUrl } from '../env.js'
import { PopupClosedError } from '../errors.js'
import { t } from '../i18n.js'
import { router } from '../state/router.js'
import { createStore } from '../state/store.js'
import { messageOf } from '../walletErrors.js'
import { completeSocialLogin, continueWithEmail, socialRedirectUri } from './login.js'

export type SocialStatus = 'idle' | 'opening' | 'waiting' | 'error'

export type SocialState = {
  provider: SocialProvider | null
  status: SocialStatus
  error: string
}

/** The social login in progress, for ConnectingSocial. */
export const socialStore = createStore<SocialState>({ provider: null, status: 'idle', error: '' })

/** How long a closed popup leaves the frame to pick up a login that finished just before. */
export const popupClosedGrace = 3_000
const popupFeatures = 'popup,width=480,height=680'

/**
 * A fresh, unguessable name for each login's window: under a fixed one, the
 * host could open a window of that name first, or look the login window up
 * by it while it runs (`window.open('', name)`) and navigate it (SECURITY.md 15).
 */
export function popupName(): string {
  return `porthole-social-${crypto.randomUUID()}`
}

let attempt = 0
let current: AbortController | null = null

/** Ends the attempt in progress (the view was left, or a new one starts). */
export function cancelSocialLogin(): void {
  attempt++
  current?.abort()
  current = null
}

/**
 * Starts a social login. Must be called from a click handler: the popup opens
 * before anything else happens, then the view shows the login's progress.
 * Once the frame is logged in, `connect` connects its wallet.
 */
export function startSocialLogin(provider: SocialProvider, connect: () => Promise<void>): void {
  cancelSocialLogin()
  const popup = window.open('about:blank', popupName(), popupFeatures)
  const id = attempt
  const controller = new AbortController()
  current = controller
  socialStore.setState({ provider, status: 'opening', error: '' })
  router.navigate('ConnectingSocial')
  const fail = (message: string) => {
    if (id !== attempt) return
    socialStore.setState({ status: 'error', error: message })
    popup?.close()
  }
  if (!popup) {
    fail(t('social.popupBlocked'))
    return
  }

  let closedTimer: ReturnType<typeof setTimeout> | undefined
  const watch = setInterval(() => {
    if (!popup.closed || closedTimer) return
    closedTimer = setTimeout(() => {
      controller.abort()
      fail(t('social.popupClosed'))
    }, popupClosedGrace)
  }, 500)
  controller.signal.addEventListener('abort', () => clearInterval(watch))

  void (async () => {
    try {
      const uri = await socialRedirectUri(provider)
      if (id !== attempt) return
      const done = waitForDone(popup, controller.signal)
      popup.location.href = uri
      socialStore.setState({ status: 'waiting' })
      const doneUri = await done
      clearInterval(watch)
      clearTimeout(closedTimer)
      if (id !== attempt) return
      const result = await completeSocialLogin(doneUri, controller.signal)
      if (id !== attempt) return
      popup.close()
      if ('action' in result) {
        // The account's email decides this device first (SECURITY.md 23).
        socialStore.setState({ status: 'idle' })
        continueWithEmail(result, 'ConnectingSocial')
        return
      }
      await connect()
      socialStore.setState({ status: 'idle' })
      router.closeFrom('ConnectingSocial')
    } catch (error) {
      clearInterval(watch)
      if (controller.signal.aborted) return
      fail(messageOf(error) || t('social.failed'))
    }
  })()
}

/**
 * The API's last page in the popup posts its URL (the login's state and a
 * one-time claim) to its opener, this window, only (SECURITY.md 15): a login
 * someone else started and sent a victim to finish can never be collected by
 * them. `SocialDoneMessage` is its shape.
 */
const doneUriPrefix = () => `${new URL(apiUrl).origin}${socialDonePath}?`

/** Resolves with the popup's final URL once the API's page posts it; only from that popup and the API's origin. */
export function waitForDone(popup: Window, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== popup || event.origin !== new URL(apiUrl).origin) return
      const parsed = SocialDoneMessage.safeParse(event.data)
      if (!parsed.success || !parsed.data.uri.startsWith(doneUriPrefix())) return
      stop()
      resolve(parsed.data.uri)
    }
    const onAbort = () => {
      stop()
      reject(new PopupClosedError(t('social.popupClosed')))
    }
    const stop = () => {
      window.removeEventListener('message', onMessage)
      signal.removeEventListener('abort', onAbort)
    }
    window.addEventListener('message', onMessage)
    signal.addEventListener('abort', onAbort)
  })
}
