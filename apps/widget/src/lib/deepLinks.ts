/**
 * A wallet's app link carrying a WalletConnect URI: a universal link
 * (`https://…`) gets `/wc?uri=`, a custom scheme (`metamask://`) gets
 * `wc?uri=` after its `://`. Anything else (a `javascript:` link in a listing)
 * gives `null`.
 */
export function toDeepLink(base: string, uri: string): string | null {
  let url: URL
  try {
    url = new URL(base)
  } catch {
    return null
  }
  if (/^(javascript|data|vbscript|file):$/i.test(url.protocol)) return null
  const encoded = encodeURIComponent(uri)
  if (url.protocol === 'https:' || url.protocol === 'http:') {
    const path = base.endsWith('/') ? base : `${base}/`
    return `${path}wc?uri=${encoded}`
  }
  const prefix = base.includes('://') ? base : base.replace(/:$/, '://')
  return `${prefix}${prefix.endsWith('/') ? '' : '/'}wc?uri=${encoded}`
}

/**
 * Whether a wallet link opens in a new tab: a web page (the web app, a
 * universal link) followed in the widget's frame would replace the widget;
 * an app's own scheme hands over to the app and the frame stays.
 */
export const opensInNewTab = (href: string): boolean => /^https?:/i.test(href)
