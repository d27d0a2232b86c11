/**
 * `npm start`: the whole stack on embedded defaults (DESIGN.md section 5).
 * Builds the browser parts, then starts a local EVM node (anvil), a local
 * Solana node (litesvm behind a validator's JSON-RPC), the API on
 * PGlite (or PostgreSQL when DATABASE_URL is set), the widget origin, the
 * secure-frame origin and the demo host, and prints their URLs.
 *
 *   --no-build   serve the existing dist folders
 *   PORTHOLE_E2E=1   a fresh database in a temp dir, plus the e2e projects
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import type { Server } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { deployIdRegistry, deployTestToken } from '@porthole/dev-stack/contracts'
import { deployDevEns } from '@porthole/dev-stack/ens'
import {
  createFarcasterRelay,
  type FarcasterRelayStandIn,
} from '@porthole/dev-stack/farcasterRelay'
import {
  createMailCatcher,
  createMailListing,
  type MailCatcher,
} from '@porthole/dev-stack/mailCatcher'
import { createOidcProvider, type OidcStandIn } from '@porthole/dev-stack/oidcProvider'
import { createPriceApi, type PriceApiStandIn } from '@porthole/dev-stack/priceApi'
import { createRelay, type Relay } from '@porthole/dev-stack/relay'
import { createSolanaNode, type SolanaNode } from '@porthole/dev-stack/solanaNode'
import {
  devEns,
  devFarcaster,
  devMnemonic,
  devPrices,
  devSocialClient,
  devSolanaToken,
  devToken,
  devTokenDeployer,
  e2eAdminToken,
  origins,
  ports,
  projects,
  relayUrl,
  solanaUrl,
  solanaWsUrl,
} from '@porthole/dev-stack/stack'
import { createStaticServer } from '@porthole/dev-stack/staticServer'
import { hostRuleOf } from '@porthole/protocol/HostNames'
import { toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { createHttpAdmin } from '../apps/api/src/admin/admin.ts'
import { runProjectCommand } from '../apps/api/src/commands.ts'
import { devProjectNetworks } from '../apps/api/src/projects/seed.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const e2e = process.env.PORTHOLE_E2E === '1'
const bin = (name: string) => join(root, 'node_modules', '.bin', name)
const children: ChildProcess[] = []
const servers: Server[] = []
let relay: Relay | undefined
let idp: OidcStandIn | undefined
let mail: MailCatcher | undefined
let farcasterRelay: FarcasterRelayStandIn | undefined
let priceApi: PriceApiStandIn | undefined
let solana: SolanaNode | undefined
let stopping = false

function run(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const prefix = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((line) => `[${name}] ${line}\n`)
      .join('')
  child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(prefix(chunk)))
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)))
  child.on('exit', (code, signal) => {
    if (stopping) return
    console.error(`[${name}] exited (${signal ?? code}); stopping the stack.`)
    stop(1)
  })
  children.push(child)
  return child
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

async function waitFor(name: string, check: () => Promise<boolean>, timeout = 60_000) {
  const deadline = Date.now() + timeout
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${name} did not become ready within ${timeout / 1000} s`)
}

/** A dev token as `TOKENS` lists it. */
const tokenEntry = ({
  address,
  name,
  symbol,
  decimals,
}: typeof devToken | typeof devSolanaToken) => ({
  address,
  name,
  symbol,
  decimals,
})

const httpOk = (url: string, init?: RequestInit) => async () => (await fetch(url, init)).ok

function listen(server: Server, port: number) {
  servers.push(server)
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
}

function stop(code = 0) {
  if (stopping) return
  stopping = true
  for (const server of servers) server.close()
  void relay?.close()
  void idp?.close()
  void mail?.close()
  void farcasterRelay?.close()
  void priceApi?.close()
  void solana?.close()
  for (const child of children) child.kill('SIGTERM')
  setTimeout(() => process.exit(code), 500).unref()
}

process.on('SIGINT', () => stop(0))
process.on('SIGTERM', () => stop(0))

async function main() {
  const busy = []
  for (const [name, port] of Object.entries(ports))
    if (await portInUse(port)) busy.push(`${name} ${port}`)
  if (busy.length > 0)
    throw new Error(`Ports already in use (${busy.join(', ')}): is the stack already running?`)

  if (!process.argv.includes('--no-build')) {
    console.log('Building the loader, the widget and the secure frame…')
    const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
    if (build.status !== 0) throw new Error('The build failed.')
  }

  // The dev outbox's unguessable path (SECURITY.md 25), new at each start, printed below.
  const outboxToken = randomBytes(24).toString('base64url')
  // The operator's admin (`/admin`, `npm run project -- --api`): ADMIN_TOKEN if set, else new at each start.
  const adminToken =
    process.env.ADMIN_TOKEN || (e2e ? e2eAdminToken : randomBytes(32).toString('base64url'))
  const pgliteDir = e2e
    ? mkdtempSync(join(tmpdir(), 'porthole-e2e-'))
    : (process.env.PGLITE_DIR ?? join(root, '.data', 'pglite'))
  const apiEnv = {
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    PGLITE_DIR: pgliteDir,
    // The dev origins come from @porthole/dev-stack; the API's defaults (its README) match them.
    PUBLIC_API_URL: origins.api,
    CORS_ORIGINS: `${origins.widget},${origins.secure}`,
    // The social login's last page posts to the widget only; the frame may collect it.
    WIDGET_ORIGIN: origins.widget,
    SECURE_FRAME_ORIGIN: origins.secure,
    RPC_UPSTREAMS: JSON.stringify({
      'eip155:31337': `http://127.0.0.1:${ports.anvil}`,
      [devSolanaToken.chainId]: solanaUrl,
    }),
    // No SMTP server in dev: login codes land in the dev outbox, served at /dev/outbox/<token>.
    // e2e sends them over SMTP to a real catcher (below).
    DEV_OUTBOX: 'true',
    DEV_OUTBOX_TOKEN: outboxToken,
    ADMIN_TOKEN: adminToken,
    // Every test browser is 127.0.0.1: the per-IP login limits would stop the suite.
    ...(e2e
      ? {
          SMTP_URL: `smtp://127.0.0.1:${ports.smtp}`,
          IP_LIMIT_SCALE: '1000',
          // A test's own requests (not the browser's) name other clients with X-Forwarded-For.
          TRUSTED_PROXIES: '127.0.0.1',
          // Farcaster against the relay stand-in, with the IdRegistry stand-in on anvil.
          FARCASTER_RELAY_URL: `http://127.0.0.1:${ports.farcaster}`,
          FARCASTER_CHAIN: 'eip155:31337',
          FARCASTER_ID_REGISTRY: devFarcaster.idRegistry,
        }
      : {}),
    // "Google" is the local OIDC stand-in (@porthole/dev-stack/oidcProvider), which signs in
    // alice@example.com with no login page.
    SOCIAL_PROVIDERS: JSON.stringify({
      google: {
        clientId: devSocialClient.clientId,
        clientSecret: devSocialClient.clientSecret,
        issuer: origins.idp,
      },
    }),
    // PTT: the ERC-20 on anvil, the SPL token on the local Solana node.
    TOKENS: JSON.stringify({
      [devToken.chainId]: [tokenEntry(devToken)],
      [devSolanaToken.chainId]: [tokenEntry(devSolanaToken)],
    }),
    // Prices of anvil's ETH and PTT: a static table in dev; e2e asks the CoinGecko-shaped stand-in.
    ...(e2e
      ? {
          PRICE_API_URL: `http://127.0.0.1:${ports.prices}`,
          PRICE_API_NETWORKS: JSON.stringify({
            [devPrices.chainId]: { platform: devPrices.platform, native: devPrices.nativeId },
          }),
        }
      : {
          PRICES: JSON.stringify({
            [devPrices.chainId]: {
              native: devPrices.native,
              tokens: { [devToken.address]: devPrices.token },
            },
          }),
        }),
  }

  run('anvil', bin('anvil'), [
    '--host',
    '127.0.0.1',
    '--port',
    String(ports.anvil),
    '--chain-id',
    '31337',
    '--silent',
  ])

  // In this process: funds the Solana dev accounts and creates the Solana dev token as it starts.
  solana = await createSolanaNode({ port: ports.solana })

  idp = await createOidcProvider({
    port: ports.idp,
    // e2e: a test signs in a fresh "Google" account by naming its email in login_hint.
    signUpByHint: e2e,
    clients: [
      {
        clientId: devSocialClient.clientId,
        clientSecret: devSocialClient.clientSecret,
        redirectUris: [devSocialClient.redirectUri],
      },
    ],
  })
  if (e2e) {
    mail = await createMailCatcher({ port: ports.smtp })
    await listen(createMailListing(mail), ports.mail)
    farcasterRelay = await createFarcasterRelay({ port: ports.farcaster })
    priceApi = await createPriceApi({
      port: ports.prices,
      prices: {
        tokens: { [devPrices.platform]: { [devToken.address]: devPrices.token } },
        coins: { [devPrices.nativeId]: devPrices.native },
      },
    })
  }

  run('api', bin('tsx'), ['apps/api/src/server.ts'], apiEnv)
  run('secure', bin('tsx'), ['apps/secure-frame/server/server.ts'], {
    PORT: String(ports.secure),
    HOST: '127.0.0.1',
    API_URL: `http://127.0.0.1:${ports.api}`,
    // The API as the browser sees it: the CSP's only connect-src.
    PUBLIC_API_URL: origins.api,
    WIDGET_ORIGIN: origins.widget,
    // Its one name, and loopback names (development): any other Host gets 421 (SECURITY.md 25).
    SECURE_FRAME_ORIGIN: origins.secure,
  })

  await listen(
    createStaticServer({
      root: join(root, 'apps/widget/dist'),
      aliases: {
        '/loader.js': join(root, 'packages/loader/dist/loader.js'),
        '/loader-solana.js': join(root, 'packages/loader/dist/loader-solana.js'),
      },
      // Its one name, and loopback names (development): any other Host gets 421 (SECURITY.md 25).
      hosts: hostRuleOf({ origin: origins.widget, loopback: true }),
    }),
    ports.widget,
  )
  const rpc = { method: 'POST', headers: { 'content-type': 'application/json' } }
  await waitFor(
    'anvil',
    httpOk(`http://127.0.0.1:${ports.anvil}`, {
      ...rpc,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }),
    }),
  )
  await deployDevToken()
  // ENS for the local chain (dev account 8's first transactions), naming dev account 1.
  await deployDevEns(`http://127.0.0.1:${ports.anvil}`)
  if (e2e) await deployDevIdRegistry()
  relay = await createRelay({ port: ports.relay, host: '127.0.0.1' })
  await waitFor('API', httpOk(`http://127.0.0.1:${ports.api}/health`))
  if (e2e && !process.env.DATABASE_URL) await createE2eProjects(adminToken)
  await waitFor('secure frame', httpOk(`http://127.0.0.1:${ports.secure}/health`))
  // The demo host starts last: its /health answering means the whole stack is up.
  const demoHost = () =>
    createStaticServer({
      root: join(root, 'apps/demo'),
      transformHtml: (html, url) => {
        const projectId = url.searchParams.get('projectId') ?? projects.dev.id
        if (!/^[a-z0-9-]{1,64}$/.test(projectId)) return undefined
        // ?siwx=required|optional turns sign-in on (fixed settings, never echoed from the query).
        const siwx = siwxSettings[url.searchParams.get('siwx') ?? '']
        return html
          .replaceAll('__WIDGET_URL__', origins.widget)
          .replaceAll('__PROJECT_ID__', projectId)
          .replaceAll(' data-siwx="__SIWX__"', siwx ? ` data-siwx="${siwx}"` : '')
      },
    })
  // e2e: a second origin on the demo's site, for sessions scoped by origin (SECURITY.md 9).
  if (e2e) await listen(demoHost(), ports.demoSameSite)
  await listen(demoHost(), ports.demo)

  console.log(`
Porthole is running (Ctrl-C stops it):
  demo host      ${origins.demo}/
  widget         ${origins.widget}/   loader: ${origins.widget}/loader.js
  secure frame   ${origins.secure}/?projectId=${projects.dev.id}
  API            ${origins.api}/   (from Node: http://127.0.0.1:${ports.api})
  EVM node       http://127.0.0.1:${ports.anvil}   anvil, chain eip155:31337
  dev token      ${devToken.symbol} at ${devToken.address} (1 000 000 for each anvil dev account)
  dev ENS        ${devEns.name} is ${devEns.owner} (anvil dev account 1); UniversalResolver ${devEns.universalResolver}
  Solana node    ${solanaUrl}   litesvm, chain ${devSolanaToken.chainId} (Solana Local), WebSocket ${solanaWsUrl}
  Solana token   ${devSolanaToken.symbol} mint ${devSolanaToken.address} (1 000 SOL and 1 000 000 ${devSolanaToken.symbol} for each Solana dev account, m/44'/501'/i'/0')
  WC relay       ${relayUrl}   a local WalletConnect relay
  admin          ${origins.api}/admin   token ${adminToken}   (or ADMIN_TOKEN=… npm run project -- --api ${origins.api} list)
  mail outbox    ${origins.api}/dev/outbox/${outboxToken}   login codes (no SMTP server in dev; a new path at each start)${e2e ? `\n  mail caught    ${origins.mail}/messages   (SMTP catcher on ${ports.smtp})` : ''}
  "Google"       ${origins.idp}   a local OIDC stand-in: signs in alice@example.com
  database       ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : `PGlite at ${pgliteDir}`}
Open ${origins.demo}/ in Chromium (it resolves *.localhost to this machine).
`)
}

/**
 * e2e: the test projects, through the running API's admin endpoints (what
 * `npm run project -- --api` does), all in this process.
 */
async function createE2eProjects(token: string) {
  const admin = createHttpAdmin({ apiUrl: `http://127.0.0.1:${ports.api}`, token })
  const errors: string[] = []
  const io = { admin, out: () => undefined, err: (line: string) => errors.push(line) }
  const run = async (argv: string[]) => {
    // Warnings (networks without an upstream) are expected: Ethereum and Base have none here.
    if ((await runProjectCommand(argv, io)) !== 0)
      throw new Error(`Could not set up the e2e projects (${argv.join(' ')}): ${errors.join('\n')}`)
  }
  for (const project of projects.e2e) {
    // The dev project's networks: the local anvil chain first, as its default.
    const create = ['create', '--id', project.id, '--name', project.name]
    create.push('--networks', devProjectNetworks.join(','))
    for (const origin of project.allowedOrigins) create.push('--origin', origin)
    await run(create)
    if ('socials' in project)
      await run([
        'set-features',
        '--id',
        project.id,
        '--email',
        'true',
        '--socials',
        project.socials,
      ])
    if ('mailBudget' in project)
      await run(['set-mail-budget', '--id', project.id, '--mails', String(project.mailBudget)])
  }
  // Pending transactions are checked every 2 s (the seed's 30 s would slow the test down).
  await run(['set-features', '--id', projects.dev.id, '--pending-poll-ms', '2000'])
}

/** The demo's sign-in settings, as the `data-siwx` attribute (HTML-escaped JSON). */
const siwxSettings: Record<string, string> = Object.fromEntries(
  Object.entries({
    required: { required: true, statement: 'Sign in to the Porthole demo.', expirationTime: 3600 },
    optional: { statement: 'Sign in to the Porthole demo.', expirationTime: 3600 },
  }).map(([name, value]) => [name, JSON.stringify(value).replaceAll('"', '&quot;')]),
)

/** e2e: the IdRegistry stand-in, from dev account 9's first transaction, with its fid. */
async function deployDevIdRegistry() {
  const account = mnemonicToAccount(devMnemonic, { addressIndex: devFarcaster.deployerIndex })
  const key = account.getHdKey().privateKey
  if (!key || account.address !== devFarcaster.deployer)
    throw new Error('The IdRegistry deployer is not anvil account 9.')
  const { address } = await deployIdRegistry({
    rpcUrl: `http://127.0.0.1:${ports.anvil}`,
    privateKey: toHex(key),
    register: [{ fid: devFarcaster.fid, custody: account.address }],
  })
  if (address.toLowerCase() !== devFarcaster.idRegistry.toLowerCase())
    throw new Error(`The IdRegistry landed at ${address}, not ${devFarcaster.idRegistry}.`)
}

/** Deploys the dev ERC-20 as anvil's first transaction, and gives every dev account some. */
async function deployDevToken() {
  const accounts = Array.from({ length: 10 }, (_, index) =>
    mnemonicToAccount(devMnemonic, { addressIndex: index }),
  )
  const deployer = accounts[0]
  const key = deployer?.getHdKey().privateKey
  if (!deployer || !key || deployer.address !== devTokenDeployer)
    throw new Error('The dev token deployer is not anvil account 0.')
  const { address } = await deployTestToken({
    rpcUrl: `http://127.0.0.1:${ports.anvil}`,
    privateKey: toHex(key),
    name: devToken.name,
    symbol: devToken.symbol,
    decimals: devToken.decimals,
    mint: accounts.map(({ address }) => ({ to: address, amount: 1_000_000n * 10n ** 6n })),
  })
  if (address.toLowerCase() !== devToken.address.toLowerCase())
    throw new Error(`The dev token landed at ${address}, not ${devToken.address}: was anvil fresh?`)
}

main().catch((error: Error) => {
  console.error(error.message)
  stop(1)
})
