/**
 * The few HTML pages the API serves to a person rather than to the frames:
 * device approval (from a mailed link) and the end of a social login (in the
 * provider's popup). No script at all; a CSP that allows only the page's own
 * style (by hash) and forms posting back to the API; never framed; no
 * referrer (the approval link's URL holds a token); never cached.
 */
import { createHash } from 'node:crypto'
import type { Context } from 'hono'

const style = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1f; }
  h1 { font-size: 1.3rem; }
  button { font: inherit; padding: 0.6rem 1.2rem; border-radius: 8px; border: 0; background: #1b1b1f; color: #fff; cursor: pointer; }
`

/** The Content-Security-Policy of every page. */
export const pageCsp = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

export type Page = {
  title: string
  /** Paragraphs of plain text (escaped here). */
  paragraphs: string[]
  /** A form posting `fields` to `action` (same origin) with one submit button. */
  form?: { action: string; fields: Record<string, string>; button: string }
}

/** Answers `page` with the pages' security headers. */
export function htmlPage(c: Context, status: 200 | 400 | 403 | 404 | 410 | 502, page: Page) {
  c.header('Content-Security-Policy', pageCsp)
  c.header('X-Frame-Options', 'DENY')
  c.header('Referrer-Policy', 'no-referrer')
  c.header('Cache-Control', 'no-store')
  return c.html(renderPage(page), status)
}

export function renderPage({ title, paragraphs, form }: Page): string {
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
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${text}
${formHtml}
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
