/**
 * The widget's deployment settings, put into its served `index.html` rather
 * than into its JavaScript, so one build serves any deployment (issue 15):
 * the API's URL, the secure frame's, and the WalletConnect relay and Cloud
 * project id.
 *
 * - `vite build` writes them (from the `VITE_*` variables, the dev stack's
 *   when unset) into the page as a JSON data block and into its CSP meta tag.
 * - `node apps/widget/scripts/configure.mjs` rewrites both in a built page for
 *   another deployment (configureHtml below); a server may do the same as it
 *   serves the page (the dev stack's static server takes `transformHtml`).
 * - The app reads the block before anything else (src/lib/runtimeConfig.ts).
 *   It is the widget's own document: no host can write it.
 *
 * Plain JavaScript with JSDoc, so `node` runs it without a build and Vite's
 * config imports it as it is.
 */

/**
 * Shows the built page's first paint (src/firstPaint.tsx: Connect rendered at
 * build time, hidden in `#root`) in the theme the site asked for, the moment
 * the parser reaches it, long before the app's JS has run: the page's one
 * inline script, allowed by its hash (`firstPaintScriptHash`, in the CSP). A
 * site with its own accent, radius or font (the loader's `theme*` parameters,
 * src/lib/themeVariables.ts) waits for the app, which paints in its look; so
 * does a page opened outside a frame, or in a sandbox with an opaque origin
 * (where the app's scripts never load, and an inert list would stay forever:
 * red team). A source text, not a function, so every bundler hashes the same
 * bytes.
 */
export const showFirstPaintSource = `(root, search, framed) => {
  const params = new URLSearchParams(search)
  const dialog = root?.querySelector('[role="dialog"]')
  if (!dialog || !framed || ['themeAccent', 'themeRadius', 'themeFont'].some((name) => params.has(name))) return
  const theme = params.get('theme')
  const dark = matchMedia('(prefers-color-scheme: dark)').matches
  dialog.dataset.theme = theme === 'light' || theme === 'dark' ? theme : dark ? 'dark' : 'light'
  root.hidden = false
}`

/** The inline script after `#root` in the built page. */
export const firstPaintScript = `(${showFirstPaintSource})(document.getElementById('root'), location.search, window.parent !== window && origin !== 'null')`

/** Its CSP source (`src/runtimeConfig.test.ts` checks it against the script). */
export const firstPaintScriptHash = "'sha256-1AROzKjnBrXA4ahQj3p75tlsDV6d6XGHZnZmPcbebOU='"

/** The id of the JSON block (`<script type="application/json">`) in the page. */
export const configElementId = 'porthole-config'

/**
 * The prefetch script's tag (vite.config.ts puts it right after the settings):
 * `fileName` is its file under the page's origin, `assets/prefetch-<hash>.js`.
 * @param {string} fileName
 */
export const prefetchScriptTag = (fileName) =>
  `<script type="module" async src="/${fileName}"></script>`

/**
 * The file a built page's prefetch script tag names (the build test and the
 * bench count it with the start-up JS: it is not in Vite's manifest).
 * @param {string} html
 * @returns {string}
 */
export function prefetchScriptFile(html) {
  const file = /<script type="module" async src="\/(assets\/prefetch-[\w-]+\.js)"><\/script>/.exec(
    html,
  )?.[1]
  if (!file) throw new Error('The built page names no prefetch script.')
  return file
}

/**
 * @typedef {{
 *   apiUrl: string
 *   secureFrameUrl: string
 *   walletConnectRelayUrl: string
 *   walletConnectProjectId: string
 * }} WidgetConfig
 */

/** A host a CSP source may name: DNS labels, an IPv4 address or a bracketed IPv6 one (no `*`, `;`, `,`, quotes). */
const plainHost =
  /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)$/

/** @param {string} name @param {unknown} value @param {readonly string[]} protocols */
function checkUrl(name, value, protocols) {
  if (typeof value !== 'string' || !URL.canParse(value))
    throw new Error(
      `${name} must be a URL (${protocols.join(' or ')}), not ${JSON.stringify(value)}`,
    )
  const url = new URL(value)
  if (
    !protocols.includes(url.protocol) ||
    url.username ||
    url.password ||
    /[?#]/.test(value) ||
    !plainHost.test(url.hostname)
  )
    throw new Error(
      `${name} must be a ${protocols.join(' or ')} URL of a plain host, without credentials, query or fragment, not ${JSON.stringify(value)}`,
    )
  return url.href.replace(/\/+$/, '')
}

/**
 * The settings, checked and normalised (no trailing slash); throws an Error
 * naming the first bad one.
 * @param {Record<string, unknown>} input
 * @returns {WidgetConfig}
 */
export function checkConfig(input) {
  const projectId = input.walletConnectProjectId
  if (typeof projectId !== 'string' || !/^[\w-]{1,128}$/.test(projectId))
    throw new Error(
      `walletConnectProjectId must be 1 to 128 letters, digits, _ or -, not ${JSON.stringify(projectId)}`,
    )
  return {
    apiUrl: checkUrl('apiUrl', input.apiUrl, ['http:', 'https:']),
    secureFrameUrl: checkUrl('secureFrameUrl', input.secureFrameUrl, ['http:', 'https:']),
    walletConnectRelayUrl: checkUrl('walletConnectRelayUrl', input.walletConnectRelayUrl, [
      'ws:',
      'wss:',
    ]),
    walletConnectProjectId: projectId,
  }
}

/**
 * The page's Content-Security-Policy: scripts and styles from the widget
 * origin only, calls and images to the API only (and the relay's socket),
 * frames from the secure origin only. (`frame-ancestors` cannot be set by a
 * meta tag; the widget may be framed anywhere and checks its host itself.)
 * @param {WidgetConfig} config
 */
export function widgetCsp(config) {
  const api = new URL(config.apiUrl).origin
  const relay = new URL(config.walletConnectRelayUrl).origin
  const secure = new URL(config.secureFrameUrl).origin
  return [
    "default-src 'none'",
    `script-src 'self' ${firstPaintScriptHash}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' ${api} data: blob:`,
    `connect-src 'self' ${api} ${relay}`,
    `frame-src ${secure}`,
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ')
}

/** @param {string} text */
const escapeAttribute = (text) =>
  text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')

/**
 * The CSP meta tag and the JSON block, in that order (a meta tag governs only
 * what follows it). `<` is escaped in the JSON, so no value can end the block.
 * @param {WidgetConfig} config
 */
export function configTags(config) {
  const json = JSON.stringify(config).replaceAll('<', '\\u003c')
  return (
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(widgetCsp(config))}">\n` +
    `    <script type="application/json" id="${configElementId}">${json}</script>`
  )
}

const tagsPattern = new RegExp(
  `<meta http-equiv="Content-Security-Policy"[^>]*>\\s*<script type="application/json" id="${configElementId}">[^<]*</script>`,
)

/**
 * A built page with `config` in place of the settings it was built with.
 * Throws when the page has not both tags (not a built widget page).
 * @param {string} html
 * @param {Record<string, unknown>} config
 */
export function configureHtml(html, config) {
  if (!tagsPattern.test(html))
    throw new Error(
      'Not a built widget page: no Content-Security-Policy meta followed by the porthole-config block.',
    )
  return html.replace(tagsPattern, () => configTags(checkConfig(config)))
}
