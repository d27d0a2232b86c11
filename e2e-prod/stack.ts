/**
 * `npm run test:prod`'s stack (Playwright's global set-up): the production
 * profile as DEPLOY.md describes it, on one machine.
 *
 * - TLS from a throwaway CA (tls.ts) for four names under `.test`, which the
 *   test's Chromium maps to 127.0.0.1 (`--host-resolver-rules`);
 * - nginx (deploy/nginx/porthole.conf) terminating TLS for the widget (the
 *   built files, pointed at this deployment by apps/widget/scripts/configure.mjs),
 *   the secure-frame server (`node dist-server/server.js`, its files built
 *   for these origins) and two API replicas (`node dist/server.js`) on one
 *   throwaway PostgreSQL, with `PORTHOLE_ENV=production` and the proxy trusted;
 * - anvil as the project's one network, under Sepolia's chain id (production
 *   refuses the dev chain 31337), and a real SMTP server catching the mail.
 *
 * The project is created through the running API's admin endpoint (the CLI
 * with `--api` and `ADMIN_TOKEN`). What the specs need is passed on in
 * `PORTHOLE_PROD_STACK` (JSON, `ProdStack`).
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startAnvil } from '@porthole/dev-stack/anvil'
import { createMailCatcher, createMailListing } from '@porthole/dev-stack/mailCatcher'
import {
  type ApiProcess,
  freePort,
  startApiProcess,
  startLocalPostgres,
  statusWithHost,
} from '../apps/api/test/process.ts'
import { startNginx } from './nginx.ts'
import { createTestTls } from './tls.ts'

const root = join(import.meta.dirname, '..')

/** The proxy's one port (every name), and the mail listing the specs read. */
export const prodPorts = { proxy: 5190, mail: 5191 } as const

export const prodNames = {
  site: 'shop.test',
  widget: 'widget.porthole.test',
  secure: 'secure.porthole.test',
  api: 'api.porthole.test',
} as const

const originOf = (name: string) => `https://${name}:${prodPorts.proxy}`
export const prodOrigins = {
  site: originOf(prodNames.site),
  widget: originOf(prodNames.widget),
  secure: originOf(prodNames.secure),
  api: originOf(prodNames.api),
  mail: `http://127.0.0.1:${prodPorts.mail}`,
} as const

/** Sepolia's id, served by anvil: the project's one network. */
export const prodChainId = 11_155_111
export const prodProjectId = 'shop'

export type ProdStack = {
  /** The throwaway CA (PEM), for the specs' own https requests. */
  ca: string
  /** Chromium's pin for the server certificate. */
  spki: string
  anvilUrl: string
  /** The replicas' own addresses (host:port), as nginx names them in its access log. */
  replicas: string[]
  accessLog: string
}

export function readProdStack(): ProdStack {
  const value = process.env.PORTHOLE_PROD_STACK
  if (!value) throw new Error('PORTHOLE_PROD_STACK is unset: run through npm run test:prod')
  return JSON.parse(value) as ProdStack
}

/** A required step's output, or an error that shows it. */
function run(what: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  try {
    return execFileSync(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: 'pipe',
      encoding: 'utf8',
    })
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string }
    throw new Error(`${what} failed:\n${stdout}${stderr}`)
  }
}

const siwxRequired = JSON.stringify({
  required: true,
  statement: 'Sign in to the shop.',
  expirationTime: 3600,
}).replaceAll('"', '&quot;')

/** The host site: one page per sign-in setting, each with the snippet and a Connect button. */
function hostPage(title: string, siwx?: string) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<script async src="${prodOrigins.widget}/loader.js" data-project-id="${prodProjectId}"${siwx ? ` data-siwx="${siwx}"` : ''}></script>
</head><body><main><h1>${title}</h1>
<button type="button" onclick="window.Wallet.open()">Connect</button></main></body></html>
`
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const stops: (() => Promise<void> | void)[] = []
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop()
  }
  try {
    const dir = mkdtempSync(join(tmpdir(), 'porthole-prod-'))
    // nginx's workers run as another user when it starts as root: they read the files here.
    chmodSync(dir, 0o755)
    stops.push(() => rmSync(dir, { recursive: true, force: true }))
    const built = ['apps/api/dist/server.js', 'apps/api/dist/cli.js']
      .concat(['apps/secure-frame/dist-server/server.js', 'apps/widget/dist/index.html'])
      .concat(['packages/loader/dist/loader.js'])
    const missing = built.filter((file) => !existsSync(join(root, file)))
    if (missing.length > 0)
      throw new Error(`Not built: ${missing.join(', ')}. Run npm run build first.`)

    const tls = createTestTls(dir, Object.values(prodNames))

    // The secure frame, built for these origins (its URLs are fixed at build time).
    const secureDist = join(dir, 'secure-frame')
    run(
      'Building the secure frame for these origins',
      'npx',
      [
        'vite',
        'build',
        'apps/secure-frame',
        '--outDir',
        secureDist,
        '--emptyOutDir',
        '--logLevel',
        'warn',
      ],
      { VITE_WIDGET_ORIGIN: prodOrigins.widget, VITE_API_URL: prodOrigins.api },
    )

    // The widget: the one build, pointed at this deployment as DEPLOY.md says, beside the loader.
    const widgetRoot = join(dir, 'widget')
    cpSync(join(root, 'apps/widget/dist'), widgetRoot, { recursive: true })
    for (const file of ['loader.js', 'loader-solana.js'])
      cpSync(join(root, 'packages/loader/dist', file), join(widgetRoot, file))
    run('Configuring the widget', process.execPath, [
      'apps/widget/scripts/configure.mjs',
      '--dist',
      widgetRoot,
      '--api-url',
      prodOrigins.api,
      '--secure-frame-url',
      prodOrigins.secure,
      // Never reached: no test here pairs over WalletConnect (and *.test is this machine).
      '--relay-url',
      `wss://relay.porthole.test:${prodPorts.proxy}`,
      '--walletconnect-project-id',
      'porthole-test-prod',
    ])

    const siteRoot = join(dir, 'site')
    mkdirSync(siteRoot)
    writeFileSync(join(siteRoot, 'index.html'), hostPage('The shop'))
    writeFileSync(join(siteRoot, 'signin.html'), hostPage('The shop, signed in', siwxRequired))
    for (const folder of [widgetRoot, secureDist, siteRoot]) chmodTree(folder)

    const postgres = await startLocalPostgres()
    if (!postgres)
      throw new Error(
        "PostgreSQL is not installed (initdb, postgres): npm test's pretest installs it as root; otherwise sudo apt-get install -y postgresql",
      )
    stops.push(() => postgres.stop())
    const anvil = await startAnvil({ chainId: prodChainId })
    stops.push(() => anvil.stop())
    const mail = await createMailCatcher()
    stops.push(() => mail.close())
    const listing = createMailListing(mail)
    await new Promise<void>((resolve, reject) => {
      listing.once('error', reject)
      listing.listen(prodPorts.mail, '127.0.0.1', () => resolve())
    })
    stops.push(() => new Promise<void>((resolve) => listing.close(() => resolve())))

    // Two replicas on their own addresses, started together (migrations take a lock).
    const replicaPorts = [await freePort(), await freePort()]
    const replicas = replicaPorts.map((port) => `127.0.0.1:${port}`)
    const adminToken = randomBytes(32).toString('base64url')
    const apiEnv = {
      PORTHOLE_ENV: 'production',
      DATABASE_URL: postgres.url,
      PUBLIC_API_URL: prodOrigins.api,
      // Its names on the private side: the secure-frame server and the CLI call a replica directly.
      API_HOSTS: replicas.join(','),
      WIDGET_ORIGIN: prodOrigins.widget,
      SECURE_FRAME_ORIGIN: prodOrigins.secure,
      CORS_ORIGINS: `${prodOrigins.widget},${prodOrigins.secure}`,
      RPC_UPSTREAMS: JSON.stringify({ [`eip155:${prodChainId}`]: anvil.url }),
      SHARE_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      MAIL_FROM: 'The shop <login@shop.test>',
      // nginx, on this machine: the only proxy whose X-Forwarded-For is believed.
      TRUSTED_PROXIES: '127.0.0.1',
      ADMIN_TOKEN: adminToken,
    }
    const apis: ApiProcess[] = await Promise.all(
      replicaPorts.map((port) =>
        startApiProcess({ ...apiEnv, PORT: String(port) }, { built: true }),
      ),
    )
    for (const api of apis) stops.push(() => api.stop())

    const cli = (args: string[]) =>
      run(
        `npm run project -- ${args[0]}`,
        process.execPath,
        ['apps/api/dist/cli.js', '--api', `http://${replicas[0]}`, ...args],
        { ADMIN_TOKEN: adminToken },
      )
    cli([
      'create',
      '--id',
      prodProjectId,
      '--name',
      'The shop',
      '--networks',
      `eip155:${prodChainId}`,
      '--origin',
      prodOrigins.site,
    ])
    cli(['set-features', '--id', prodProjectId, '--email', 'true'])

    const securePort = await freePort()
    const secure = await startNode(
      'secure frame',
      'apps/secure-frame/dist-server/server.js',
      {
        PORTHOLE_ENV: 'production',
        PORT: String(securePort),
        HOST: '127.0.0.1',
        DIST_DIR: secureDist,
        API_URL: `http://${replicas[0]}`,
        PUBLIC_API_URL: prodOrigins.api,
        WIDGET_ORIGIN: prodOrigins.widget,
        SECURE_FRAME_ORIGIN: prodOrigins.secure,
      },
      `http://127.0.0.1:${securePort}/health`,
      `${prodNames.secure}:${prodPorts.proxy}`,
    )
    stops.push(() => secure.stop())

    const nginx = await startNginx({
      dir: join(dir, 'nginx'),
      listen: `127.0.0.1:${prodPorts.proxy}`,
      tls,
      widget: { host: prodNames.widget, root: widgetRoot },
      secure: { host: prodNames.secure, upstream: `127.0.0.1:${securePort}` },
      api: { host: prodNames.api, replicas },
      site: { host: prodNames.site, root: siteRoot },
    })
    stops.push(() => nginx.stop())

    const stack: ProdStack = {
      ca: tls.ca,
      spki: tls.spki,
      anvilUrl: anvil.url,
      replicas,
      accessLog: join(dir, 'nginx', 'access.log'),
    }
    process.env.PORTHOLE_PROD_STACK = JSON.stringify(stack)
    return stopAll
  } catch (error) {
    await stopAll()
    throw error
  }
}

/** Lets nginx's workers (another user, when it starts as root) read a folder. */
function chmodTree(folder: string) {
  chmodSync(folder, 0o755)
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) chmodTree(path)
    else chmodSync(path, 0o644)
  }
}

/** `node <script>` from the repository root, once `health` answers 200 to its public `host`. */
async function startNode(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  health: string,
  /** The public name it answers to (any other Host gets 421 in production). */
  host: string,
) {
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The ${name} exited at start:\n${output}`)
    if (
      await statusWithHost(health, host).then(
        (status) => status === 200,
        () => false,
      )
    )
      break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`The ${name} did not answer ${health} within 30 s:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
