/**
 * The operator's admin, while the API runs (no downtime, PGlite included):
 * JSON endpoints under `/admin/v1/` for `npm run project -- --api` and the
 * admin page (`GET /admin`, one static script of the API's own), all
 * behind `ADMIN_TOKEN`. Unset, none of it exists (404).
 *
 * - Every call carries `Authorization: Bearer <ADMIN_TOKEN>`, compared in
 *   constant time; a wrong or missing token is 401, and wrong tokens are
 *   rate-limited per client address (20 per 10 minutes).
 * - A browser may call them only from the API's own origin (the admin page):
 *   any other `Origin` is 403 before the token is even read. A page elsewhere
 *   cannot add the header without a CORS preflight, which only the widget and
 *   the secure frame pass, and they never hold the token. The CLI sends no
 *   `Origin`. Writes take JSON only (415 otherwise).
 * - Changes go through the same functions as the CLI (admin.ts), which tell
 *   every replica (projects.ts: `LISTEN/NOTIFY` on PostgreSQL, the cache in
 *   this process on PGlite).
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { type Context, Hono } from 'hono'
import { z } from 'zod'
import type { Db } from '../db/db.js'
import { enforceRateLimit } from '../db/rateLimit.js'
import type { Config } from '../http/config.js'
import { mediaType } from '../http/crossSite.js'
import { HttpError } from '../http/errors.js'
import { escapeHtml } from '../http/pages.js'
import { clientIp, limitBody, parseInput, readJsonBody } from '../http/request.js'
import { createDbAdmin, isRefusal } from './admin.js'

/** The largest admin request body read. */
const adminBodyBytes = 256 * 1024

/** Wrong tokens per client address before 429. */
const failedTokenLimit = { limit: 20, windowSeconds: 10 * 60 } as const

const digest = (text: string) => createHash('sha256').update(text).digest()

const Strings = z.array(z.string().max(300)).max(500)
const CreateBody = z.strictObject({
  id: z.string().max(100),
  name: z.string().max(200),
  allowedOrigins: Strings.optional(),
  networks: Strings.optional(),
})
const OriginsBody = z.strictObject({ origins: Strings })
const NetworksBody = z.strictObject({ networks: Strings })
const FeaturesBody = z.strictObject({
  email: z.boolean().optional(),
  socials: Strings.optional(),
  analytics: z.boolean().optional(),
  history: z.boolean().optional(),
  pendingTransactionsPollMs: z.number().int().min(1_000).max(3_600_000).nullable().optional(),
  heavyRpc: z.boolean().optional(),
})
const SpamBody = z.strictObject({
  add: z.array(z.string().max(200)).max(1_000).optional(),
  remove: z.array(z.string().max(200)).max(1_000).optional(),
})
const MailBudgetBody = z.strictObject({
  mails: z.number().int().positive().max(1_000_000).nullable(),
})
const UsageQuery = z.strictObject({
  days: z
    .string()
    .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 366')
    .transform(Number)
    .pipe(z.number().min(1).max(366))
    .optional(),
})

export function createAdminRoutes({ db, config }: { db: Db; config: Config }): Hono {
  const app = new Hono()
  const token = config.adminToken
  if (token === undefined) return app
  const tokenDigest = digest(token)
  const ownOrigin = new URL(config.publicApiUrl).origin
  const admin = createDbAdmin({ db, rpcUpstreams: config.rpcUpstreams })

  app.use('/admin/*', async (c, next) => {
    c.header('Cache-Control', 'no-store')
    const origin = c.req.header('origin')
    if (origin !== undefined && origin !== ownOrigin)
      throw new HttpError(
        403,
        'origin_not_allowed',
        "Only the API's own admin page may call the admin",
      )
    await next()
  })

  app.use('/admin/v1/*', async (c, next) => {
    const [scheme, given] = (c.req.header('authorization') ?? '').split(' ')
    if (scheme !== 'Bearer' || !given || !timingSafeEqual(digest(given), tokenDigest)) {
      await enforceRateLimit(db, {
        key: `admin-token-ip:${clientIp(c)}`,
        ...failedTokenLimit,
        message: 'Too many wrong admin tokens from this address',
      })
      throw new HttpError(
        401,
        'admin_unauthorized',
        'A valid ADMIN_TOKEN is needed (Authorization: Bearer …)',
        {
          headers: { 'WWW-Authenticate': 'Bearer' },
        },
      )
    }
    if (c.req.method !== 'GET' && mediaType(c.req.header('content-type')) !== 'application/json')
      throw new HttpError(
        415,
        'unsupported_media_type',
        'The body must be JSON (Content-Type: application/json)',
      )
    await next()
  })
  // A project's settings are small: nothing larger is read.
  app.use('/admin/v1/*', limitBody(adminBodyBytes))

  /** Runs an admin operation; its refusals (the CLI's messages) become 400, an unknown project 404. */
  const refusing = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (!isRefusal(error)) throw error
      const unknown = /^No project with/.test(error.shortMessage)
      throw new HttpError(
        unknown ? 404 : 400,
        unknown ? 'project_not_found' : 'invalid_request',
        error.shortMessage,
      )
    }
  }

  const body = async <S extends z.ZodType>(c: Context, schema: S) =>
    parseInput(schema, await readJsonBody(c), 'body') as z.infer<S>
  const id = (c: Context) => c.req.param('id') ?? ''

  app.get('/admin/v1/projects', async (c) => c.json({ projects: await admin.list() }))
  app.post('/admin/v1/projects', async (c) => {
    const input = await body(c, CreateBody)
    const created = await refusing(() =>
      admin.create({ ...input, allowedOrigins: input.allowedOrigins ?? [] }),
    )
    return c.json(created, 201)
  })
  app.put('/admin/v1/projects/:id/origins', async (c) => {
    const { origins } = await body(c, OriginsBody)
    return c.json(await refusing(() => admin.setOrigins(id(c), origins)))
  })
  app.put('/admin/v1/projects/:id/networks', async (c) => {
    const { networks } = await body(c, NetworksBody)
    return c.json(await refusing(() => admin.setNetworks(id(c), networks)))
  })
  app.put('/admin/v1/projects/:id/features', async (c) => {
    const changes = await body(c, FeaturesBody)
    return c.json(await refusing(() => admin.setFeatures(id(c), changes)))
  })
  app.put('/admin/v1/projects/:id/mail-budget', async (c) => {
    const { mails } = await body(c, MailBudgetBody)
    return c.json(await refusing(() => admin.setMailBudget(id(c), mails)))
  })
  app.get('/admin/v1/projects/:id/spam', async (c) =>
    // No changes: the project's list as it stands.
    c.json(await refusing(() => admin.setSpam(id(c), {}))),
  )
  app.put('/admin/v1/projects/:id/spam', async (c) => {
    const changes = await body(c, SpamBody)
    return c.json(await refusing(() => admin.setSpam(id(c), changes)))
  })
  app.get('/admin/v1/projects/:id/usage', async (c) => {
    const { days = 1 } = parseInput(UsageQuery, c.req.query(), 'query')
    return c.json(await refusing(() => admin.usage(id(c), days)))
  })
  app.get('/admin/v1/projects/:id/stats', async (c) => {
    const { days = 7 } = parseInput(UsageQuery, c.req.query(), 'query')
    return c.json(await refusing(() => admin.stats(id(c), days)))
  })

  app.get('/admin', (c) => adminPage(c))
  app.get('/admin/admin.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8')
    return c.body(adminScript)
  })
  return app
}

const adminStyle = `
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1f; }
  h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
  section { border: 1px solid #c9cad1; border-radius: 10px; padding: 1rem; margin: 1rem 0; }
  label { display: block; margin: .5rem 0 .2rem; font-weight: 600; }
  textarea, input[type=text], input[type=password], input[type=number] { font: inherit; width: 100%; box-sizing: border-box; padding: .4rem; border: 1px solid #8a8c96; border-radius: 6px; }
  button { font: inherit; margin-top: .5rem; padding: .4rem 1rem; border-radius: 6px; border: 0; background: #1b1b1f; color: #fff; cursor: pointer; }
  button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid #3b6de0; outline-offset: 2px; }
  .check { display: inline-flex; gap: .4rem; margin-right: 1.2rem; font-weight: 400; }
  .warning { color: #8a4b00; } .error { color: #b3261e; }
  :root { color-scheme: light dark; }
  @media (prefers-color-scheme: dark) {
    body { background: #17181d; color: #f2f3f6; } section { border-color: #3a3c45; }
    button { background: #f2f3f6; color: #17181d; } .warning { color: #ffb86b; } .error { color: #ff8a80; }
    textarea, input[type=text], input[type=password], input[type=number] { background: #22242b; color: #f2f3f6; }
  }
`

const adminCsp = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'sha256-${createHash('sha256').update(adminStyle).digest('base64')}'`,
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ')

function adminPage(c: Context) {
  c.header('Content-Security-Policy', adminCsp)
  c.header('X-Frame-Options', 'DENY')
  c.header('Referrer-Policy', 'no-referrer')
  // An opener (another site's page that opened this one) keeps no handle on it.
  c.header('Cross-Origin-Opener-Policy', 'same-origin')
  const title = 'Porthole admin'
  return c.html(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${adminStyle}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<div id="sign-in">
<label for="token">Admin token (ADMIN_TOKEN)</label>
<input id="token" type="password" autocomplete="off" spellcheck="false">
<button id="open" type="button">Open</button>
</div>
<p id="status" role="status" aria-live="polite"></p>
<div id="projects"></div>
</main>
<script src="/admin/admin.js"></script>
</body>
</html>
`)
}

/**
 * The admin page's script: plain DOM, every value set as text (never HTML).
 * The token lives in this page's memory only (never in storage: a popup
 * another site opens would inherit a tab's sessionStorage and sign itself
 * in), and goes only to this origin's `/admin/v1/`, in the Authorization
 * header. A reload asks for it again.
 */
export const adminScript = `'use strict'
;(() => {
  const $ = (id) => document.getElementById(id)
  const status = $('status')
  const say = (text, kind) => { status.textContent = text; status.className = kind || '' }
  const el = (tag, props, children) => {
    const node = document.createElement(tag)
    Object.assign(node, props || {})
    for (const child of children || []) node.append(child)
    return node
  }
  let token = ''
  const call = async (method, path, body) => {
    const response = await fetch(path, {
      method,
      headers: Object.assign({ authorization: 'Bearer ' + token, accept: 'application/json' },
        body === undefined ? {} : { 'content-type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const answer = await response.json().catch(() => ({}))
    if (!response.ok) throw new Error((answer.error && answer.error.message) || 'HTTP ' + response.status)
    return answer
  }
  const path = (id, what) => '/admin/v1/projects/' + encodeURIComponent(id) + '/' + what
  const lines = (text) => text.split(/[\\n,]/).map((line) => line.trim()).filter(Boolean)
  const warnings = (project) => project.networksWithoutUpstream.length === 0 ? '' :
    ' Warning: no RPC upstream for ' + project.networksWithoutUpstream.join(', ') + ' (set RPC_UPSTREAMS): the widget cannot read balances or send there.'
  const save = async (button, run, done) => {
    button.disabled = true
    try {
      const project = await run()
      const region = button.closest('section').ariaLabel
      const label = button.textContent
      // The page shows the saved state first, then says so: nothing typed after the message is replaced.
      await render()
      // Focus stays where it was: the same button of the same project.
      const section = [...document.querySelectorAll('section')].find((node) => node.ariaLabel === region)
      const again = section && [...section.querySelectorAll('button')].find((node) => node.textContent === label)
      if (again) again.focus()
      say(done + warnings(project), project.networksWithoutUpstream.length ? 'warning' : '')
    }
    catch (error) { say('Not saved: ' + error.message, 'error') }
    finally { button.disabled = false }
  }
  const field = (id, label, control) => [el('label', { htmlFor: id, textContent: label }), Object.assign(control, { id })]
  const check = (id, label, checked) => {
    const box = el('input', { type: 'checkbox', id, checked })
    return [box, el('label', { className: 'check', htmlFor: id }, [box, label])]
  }
  const projectSection = async (project) => {
    const key = project.id.replace(/[^A-Za-z0-9_-]/g, '_')
    const origins = el('textarea', { rows: 3, value: project.allowedOrigins.join('\\n') })
    const saveOrigins = el('button', { type: 'button', textContent: 'Save origins' })
    saveOrigins.onclick = () => save(saveOrigins, () => call('PUT', path(project.id, 'origins'), { origins: lines(origins.value) }), 'Saved the allowed origins of ' + project.id + '.')
    const networks = el('input', { type: 'text', value: project.networks.join(', ') })
    const saveNetworks = el('button', { type: 'button', textContent: 'Save networks' })
    saveNetworks.onclick = () => save(saveNetworks, () => call('PUT', path(project.id, 'networks'), { networks: lines(networks.value) }), 'Saved the networks of ' + project.id + '.')
    const [email, emailLabel] = check(key + '-email', 'Email login', project.features.email)
    const [analytics, analyticsLabel] = check(key + '-analytics', 'Analytics', project.features.analytics)
    const [heavy, heavyLabel] = check(key + '-heavy', 'Heavy RPC calls', project.heavyRpc)
    const [history, historyLabel] = check(key + '-history', 'Transaction history (Activity)', project.features.history)
    const pollMs = project.features.pendingTransactionsPollMs
    const poll = el('input', { type: 'text', inputMode: 'numeric', value: pollMs ? String(pollMs / 1000) : '' })
    const socials = el('input', { type: 'text', value: project.features.socials.join(', ') })
    const saveFeatures = el('button', { type: 'button', textContent: 'Save features' })
    saveFeatures.onclick = () => save(saveFeatures, () => {
      const seconds = poll.value.trim()
      if (seconds !== '' && !/^[0-9]{1,4}([.][0-9]{1,3})?$/.test(seconds))
        return Promise.reject(new Error('the pending check interval must be seconds from 1 to 3600 (such as 30 or 1.5), or empty for off'))
      return call('PUT', path(project.id, 'features'), {
        email: email.checked, analytics: analytics.checked, history: history.checked, heavyRpc: heavy.checked,
        socials: lines(socials.value), pendingTransactionsPollMs: seconds === '' ? null : Math.round(Number(seconds) * 1000),
      })
    }, 'Saved the features of ' + project.id + '.')
    const spamList = await call('GET', path(project.id, 'spam')).catch(() => null)
    const spam = el('textarea', { rows: 2, value: spamList ? spamList.contracts.join('\\n') : '' })
    const saveSpam = el('button', { type: 'button', textContent: 'Save spam list', disabled: spamList === null })
    saveSpam.onclick = () => save(saveSpam, async () => {
      const wanted = lines(spam.value).map((contract) => contract.toLowerCase())
      const add = wanted.filter((contract) => !spamList.contracts.includes(contract))
      const remove = spamList.contracts.filter((contract) => !wanted.includes(contract))
      // The endpoint takes at most 1,000 of each per call.
      for (let at = 0; at < Math.max(add.length, remove.length); at += 1000)
        await call('PUT', path(project.id, 'spam'), { add: add.slice(at, at + 1000), remove: remove.slice(at, at + 1000) })
      return project
    }, 'Saved the spam list of ' + project.id + '.')
    const usage = await call('GET', path(project.id, 'usage') + '?days=1').catch(() => null)
    const counters = usage === null ? 'Counters unavailable.' :
      'Today (UTC): mail budget ' + usage.mailBudget.mails + ' per ' + usage.mailBudget.windowMinutes + ' minutes' +
      (usage.mailBudget.isDefault ? ' (the default)' : '') + '; mails past it ' + usage.overflowMails +
      '; proof-of-work challenges ' + usage.challengesIssued + ' issued, ' + usage.challengesSolved + ' solved; RPC budget spent in ' +
      usage.rpcBudget.windowsOver + ' window(s), ' + usage.rpcBudget.callsOver + ' calls past it.'
    const stats = await call('GET', path(project.id, 'stats') + '?days=7').catch(() => null)
    const events = stats === null ? 'Events unavailable.' :
      'Widget events, last 7 days (UTC): ' +
      (stats.totals.length ? stats.totals.map((total) => total.event + ' ' + total.count).join(', ') : 'none') +
      '. Connect funnel (visitors): opened ' + stats.funnel.opened + ', chose a wallet ' + stats.funnel.choseWallet +
      ', connected ' + stats.funnel.connected + '. Error reports: ' + stats.errorReports + '.'
    const upstream = project.networksWithoutUpstream.length
      ? [el('p', { className: 'warning', textContent: warnings(project).trim() })] : []
    return el('section', { ariaLabel: 'Project ' + project.id }, [
      el('h2', { textContent: project.name + ' (' + project.id + ')' }),
      ...field(key + '-origins', 'Allowed origins (one per line; none: dev hosts only)', origins), saveOrigins,
      ...field(key + '-networks', 'Networks (CAIP-2, the first is the default)', networks), saveNetworks, ...upstream,
      el('fieldset', {}, [el('legend', { textContent: 'Features' }), emailLabel, analyticsLabel, historyLabel, heavyLabel,
        ...field(key + '-socials', 'Social logins (google, github, apple, facebook, x, discord)', socials),
        ...field(key + '-poll', 'Check pending transactions every (seconds; empty: off)', poll), saveFeatures]),
      ...field(key + '-spam', 'NFT contracts flagged as spam in Activity (CAIP-10, one per line)', spam), saveSpam,
      el('p', { textContent: counters }),
      el('p', { textContent: events }),
    ])
  }
  const render = async () => {
    const { projects } = await call('GET', '/admin/v1/projects')
    const sections = []
    for (const project of projects) sections.push(await projectSection(project))
    $('projects').replaceChildren(...(sections.length ? sections : [el('p', { textContent: 'No projects yet: npm run project -- create.' })]))
  }
  const open = async () => {
    token = $('token').value.trim() || token
    try {
      await render()
      $('token').value = ''
      $('sign-in').hidden = true
      say('')
    } catch (error) {
      token = ''
      say('Could not open the admin: ' + error.message, 'error')
      $('token').focus()
    }
  }
  $('open').onclick = open
  $('token').onkeydown = (event) => { if (event.key === 'Enter') open() }
})()
`
