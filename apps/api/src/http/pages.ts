/**
 * The few HTML pages the API serves to a person rather than to the frames:
 * device approval (from a mailed link) and the end of a social login (in the
 * provider's popup). No script at all (but the social login's done page,
 * which loads one static script of the API's own); a CSP that allows only
 * the page's own style (by hash) and forms posting back to the API; never
 * framed; no referrer (the approval link's URL holds a token; a page with a
 * form sends it to its own origin only, see `referrerPolicyOf`); never cached.
 * Each page's content is its `main` landmark.
 */
import { createHash } from 'node:crypto'
import type { Context } from 'hono'

const style = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1f; }
  h1 { font-size: 1.3rem; }
  button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 8px; border: 0; background: #1b1b1f; color: #fff; cursor: pointer; }
  :root { color-scheme: light dark; }
  @media (prefers-color-scheme: dark) {
    body { background: #17181d; color: #f2f3f6; }
    button { background: #f2f3f6; color: #17181d; }
  }
`

const styleSrc = `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`

/** The Content-Security-Policy of every page but the done page. */
export const pageCsp = [
  "default-src 'none'",
  styleSrc,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

/**
 * The done page's: its one script from the API (`done.js`), no inline
 * script, no form, never framed.
 */
export const donePageCsp = [
  "default-src 'none'",
  "script-src 'self'",
  styleSrc,
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

/** The done page's text when it has no opener (or cannot reach it). */
export const noOpenerMessage =
  'This sign-in was not started from this browser window. Close this window and start again from the site.'

/**
 * The script of the done page (`GET /auth/v1/social/done.js`): posts
 * `{ type: 'porthole:social-done', uri: location.href }` to `window.opener`
 * with the widget's origin (the page's `porthole-widget-origin` meta) as the
 * target origin, then closes the window. The browser delivers it only when
 * the opener is a window of the widget's origin. Without an opener it shows
 * `noOpenerMessage` and does nothing else.
 */
export const doneScript = `'use strict'
;(() => {
  const show = (id, visible) => {
    const element = document.getElementById(id)
    if (element) element.hidden = !visible
  }
  const meta = document.querySelector('meta[name="porthole-widget-origin"]')
  const target = meta ? meta.getAttribute('content') : null
  const opener = window.opener
  if (!opener || !target) {
    show('working', false)
    show('no-opener', true)
    return
  }
  try {
    opener.postMessage({ type: 'porthole:social-done', uri: location.href }, target)
  } catch {
    show('working', false)
    show('no-opener', true)
    return
  }
  window.close()
})()
`

/** Answers the done page of a social login (`GET /auth/v1/social/done`) with its headers. */
export function donePage(c: Context, widgetOrigin: string) {
  c.header('Content-Security-Policy', donePageCsp)
  c.header('X-Frame-Options', 'DENY')
  c.header('Referrer-Policy', 'no-referrer')
  c.header('Cache-Control', 'no-store')
  const title = 'Finishing sign-in'
  return c.html(
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="porthole-widget-origin" content="${escapeHtml(widgetOrigin)}">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p id="working">This window closes by itself.</p>
<p id="no-opener" hidden>${escapeHtml(noOpenerMessage)}</p>
</main>
<script src="done.js"></script>
</body>
</html>
`,
    200,
  )
}

export type Page = {
  title: string
  /** Paragraphs of plain text (escaped here). */
  paragraphs: string[]
  /** A form posting `fields` to `action` (same origin) with one submit button. */
  form?: { action: string; fields: Record<string, string>; button: string }
}

/**
 * The referrer policy of a page: none at all, but for a page with a form,
 * `same-origin`: under `no-referrer` the browser sends `Origin: null` with the
 * form's POST, and the API accepts the form only from its own origin
 * (SECURITY.md 21). The page loads nothing from elsewhere (its CSP), so its
 * URL, which may hold a token, still goes to no other site.
 */
export function referrerPolicyOf(page: Page): 'no-referrer' | 'same-origin' {
  return page.form === undefined ? 'no-referrer' : 'same-origin'
}

/** Answers `page` with the pages' security headers. */
export function htmlPage(c: Context, status: 200 | 400 | 403 | 404 | 410 | 415 | 502, page: Page) {
  c.header('Content-Security-Policy', pageCsp)
  c.header('X-Frame-Options', 'DENY')
  c.header('Referrer-Policy', referrerPolicyOf(page))
  c.header('Cache-Control', 'no-store')
  return c.html(renderPage(page), status)
}

export function renderPage(page: Page): string {
  const { title, paragraphs, form } = page
  const text = paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')
  const formHtml =
    form === undefined
      ? ''
      : `<form method="post" action="${escapeHtml(form.action)}">
${Object.entries(form.fields)
  .map(
    ([name, value]) =>
      `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
  )
  .join('\n')}
<button type="submit">${escapeHtml(form.button)}</button>
</form>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${referrerPolicyOf(page)}">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${text}
${formHtml}
</main>
</body>
</html>
`
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}
