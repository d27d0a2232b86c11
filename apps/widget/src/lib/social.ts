/**
 * Social login (google, github, apple, facebook, x, discord): a popup opened
 * synchronously in the click handler (SECURITY.md 15, so no popup blocker
 * stops it), sent to the provider's authorization URL that the secure frame
 * gets from the API. The provider redirects the popup to the API, which
 * finishes the code exchange; the result reaches only the secure frame, which
 * polls the API with its one-time state. The widget never sees a code or a
 * token: it only learns that the frame is logged in, then connects.
 */
import type { SocialProvider } from '@porthole/protocol/Api'
import { completeSocialLogin, socialRedirectUri } from './embedded.js'
import { loadEvm } from './evm.js'
import { t } from './i18n.js'
import { router } from './router.js'
import { createStore } from './store.js'
import { messageOf } from './walletErrors.js'

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
 */
export function startSocialLogin(provider: SocialProvider): void {
  cancelSocialLogin()
  const popup = window.open('about:blank', 'porthole-social', popupFeatures)
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
      popup.location.href = uri
      socialStore.setState({ status: 'waiting' })
      await completeSocialLogin(uri, controller.signal)
      clearInterval(watch)
      clearTimeout(closedTimer)
      if (id !== attempt) return
      popup.close()
      const evm = await loadEvm()
      await evm.connectEmbedded()
      socialStore.setState({ status: 'idle' })
      router.closeFrom('ConnectingSocial')
    } catch (error) {
      clearInterval(watch)
      if (controller.signal.aborted) return
      fail(messageOf(error) || t('social.failed'))
    }
  })()
}
