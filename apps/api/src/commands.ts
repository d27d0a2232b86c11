import { parseArgs } from 'node:util'
import { Networks } from '@porthole/chains'
import {
  isRefusal,
  type ProjectAdmin,
  type ProjectStats,
  type ProjectUsage,
  type ProjectView,
} from './admin/admin.js'
import { BaseError } from './http/errors.js'
import { describeKnownNetworks, splitNetworkList } from './projects/networks.js'

export const usage = `Manage Porthole projects (the API's database: DATABASE_URL, else PGlite in PGLITE_DIR).

Usage: npm run project -- [--api API_URL] <command> [options]

With --api, the command goes through that running API's admin endpoints
(ADMIN_TOKEN in the environment: the API's own): nothing needs stopping.
Without it, the command opens the API's database itself (DATABASE_URL, else
PGlite in PGLITE_DIR: stop the API first).

Commands:
  list
      List every project with its allowed origins, networks and features.
  create --id ID --name NAME [--origin ORIGIN]... [--networks NETWORK,...]
      Create a project. Each --origin is an exact origin (https://app.example.com,
      http://localhost:3000) or a wildcard under a domain you own
      (https://*.example.com). With no --origin the list is empty: the widget then
      allows only the dev hosts (localhost, 127.0.0.1, *.localhost).
      With no --networks the project offers eip155:1 (Ethereum) only.
  set-origins --id ID (--origin ORIGIN... | --clear)
      Replace a project's allowed origins; --clear empties the list.
  set-networks --id ID --networks NETWORK,...
      Replace the networks the widget offers, as CAIP-2 ids separated by commas
      (eip155:31337,eip155:1,eip155:8453); the first is the default network.
  spam --id ID [--add CONTRACT]... [--remove CONTRACT]...
      Flag (--add) or unflag (--remove) NFT contracts as spam in the project's
      Activity, each as CAIP-10 (eip155:1:0x…); prints the project's list. The
      widget hides a transaction whose transfers are all spam. Contracts the
      API's own rule flags (a mint to 20 or more accounts in one transaction)
      stay flagged.
  stats --id ID [--days N]
      The widget's events over the last N UTC days (7 by default): counts per
      event and per day, error reports, and the connect funnel (visitors who
      opened the modal, chose a wallet, connected). Needs analytics on.
  set-features --id ID [--email true|false] [--socials PROVIDER,...] [--analytics true|false]
               [--history true|false] [--pending-poll-ms MS|off] [--heavy-rpc true|false]
      Turn email login on or off and choose the social logins Connect shows
      (google,github,apple,facebook,x,discord; an empty value shows none).
      Each provider must also be configured on the API (SOCIAL_PROVIDERS).
      --analytics false stops the widget's usage events (GET /getAnalyticsConfig
      answers false, POST /e refuses them; error reports still go); on for a
      new project.
      --history true shows Account's Activity (the API's indexed history, on
      the networks HISTORY_INDEXER follows); off for a new project.
      --pending-poll-ms MS has the widget check its pending transactions for a
      receipt every MS milliseconds (1000 to 3600000; the seed's 30000); off
      (the default) checks them only when Account or Activity opens.
      --heavy-rpc true lets the RPC proxy forward heavy parameters for the
      project (state and block overrides, eth_getLogs over more than 1,000
      blocks); off by default. Answers stay capped (RPC_MAX_ANSWER_BYTES).
  set-mail-budget --id ID (--mails N | --default)
      Set the project's shared mail budget: N login and email-change mails per
      10 minutes (default 200). Past it mails need a proof of work the secure
      frame solves in the visitor's browser; none is refused for the budget.
  usage --id ID [--days N]
      Show the project's mail budget and, over the last N days (default 1,
      today UTC included), the mails sent past it and the proof-of-work
      challenges issued and solved; and the minutes in which the project
      spent its shared RPC budget, with the calls served past it (at a
      quarter of the per-IP limits).
  help
      Show this text.

Wildcards under public suffixes (https://*.vercel.app, https://*.pages.dev,
https://*.com) are refused: list each such origin exactly.
Known networks (CAIP-2 namespace: references):
  ${describeKnownNetworks('\n  ')}
With PGlite and no --api, stop the API server first (one process may open it at a time).`

const networkName = (id: string) => Networks.getByCaipNetworkId(id)?.name ?? 'unknown'

export type CommandIo = {
  out: (line: string) => void
  err: (line: string) => void
}

class UsageError extends BaseError {
  override name = 'UsageError'
}

/** Runs one `npm run project` command; resolves to the process exit code. */
export async function runProjectCommand(
  argv: readonly string[],
  { admin, out, err }: CommandIo & { admin: ProjectAdmin },
): Promise<number> {
  /** One warning per network of `project` the RPC proxy has no upstream for. */
  const warnUpstreams = (project: ProjectView) => {
    for (const network of project.networksWithoutUpstream)
      err(
        `Warning: ${network} (${networkName(network)}) has no RPC upstream: set it in the API's RPC_UPSTREAMS, e.g. RPC_UPSTREAMS='{"${network}":"https://…"}'. Until then the widget cannot read balances or send on it.`,
      )
  }
  const [command, ...rest] = argv
  try {
    switch (command) {
      case 'list': {
        parse(() => parseArgs({ args: [...rest], options: {}, strict: true }))
        const projects = await admin.list()
        if (projects.length === 0) out('No projects.')
        for (const project of projects) out(describe(project))
        return 0
      }
      case 'create': {
        const { values } = parse(() =>
          parseArgs({
            args: [...rest],
            options: {
              id: { type: 'string' },
              name: { type: 'string' },
              origin: { type: 'string', multiple: true },
              networks: { type: 'string', multiple: true },
            },
            strict: true,
          }),
        )
        const id = required(values.id, '--id')
        const name = required(values.name, '--name')
        const project = await admin.create({
          id,
          name,
          allowedOrigins: values.origin ?? [],
          networks: values.networks && splitNetworkList(values.networks),
        })
        out(`Created project '${project.id}'.`)
        out(describe(project))
        warnUpstreams(project)
        return 0
      }
      case 'set-origins': {
        const { values } = parse(() =>
          parseArgs({
            args: [...rest],
            options: {
              id: { type: 'string' },
              origin: { type: 'string', multiple: true },
              clear: { type: 'boolean' },
            },
            strict: true,
          }),
        )
        const id = required(values.id, '--id')
        const origins = values.origin ?? []
        if (values.clear && origins.length > 0) {
          throw new UsageError('Give either --origin or --clear, not both')
        }
        if (!values.clear && origins.length === 0) {
          throw new UsageError('Give at least one --origin (or --clear to empty the list)')
        }
        const project = await admin.setOrigins(id, origins)
        out(`Updated the allowed origins of '${project.id}'.`)
        out(describe(project))
        return 0
      }
      case 'set-networks': {
        const { values } = parse(() =>
          parseArgs({
            args: [...rest],
            options: {
              id: { type: 'string' },
              networks: { type: 'string', multiple: true },
            },
            strict: true,
          }),
        )
        const id = required(values.id, '--id')
        if (values.networks === undefined) throw new UsageError('--networks is required')
        const project = await admin.setNetworks(id, splitNetworkList(values.networks))
        out(`Updated the networks of '${project.id}'.`)
        out(describe(project))
        warnUpstreams(project)
        return 0
      }
      case 'set-features': {
        const { values } = parse(() =>
          parseArgs({
            args: [...rest],
            options: {
              id: { type: 'string' },
              email: { type: 'string' },
              socials: { type: 'string' },
              analytics: { type: 'string' },
              history: { type: 'string' },
              'pending-poll-ms': { type: 'string' },
              'heavy-rpc': { type: 'string' },
            },
            strict: true,
          }),
        )
        const id = required(values.id, '--id')
        const heavyRpc = values['heavy-rpc']
        const { email, socials, analytics, history } = values
        const pollMs = values['pending-poll-ms']
        if (
          [email, socials, analytics, history, pollMs, heavyRpc].every(
            (value) => value === undefined,
          )
        )
          throw new UsageError(
            'Give --email, --socials, --analytics, --history, --pending-poll-ms, --heavy-rpc or several',
          )
        if (pollMs !== undefined && pollMs !== 'off' && !/^\d{4,7}$/.test(pollMs))
          throw new UsageError(
            `--pending-poll-ms must be a number of milliseconds from 1000 to 3600000, or off, not '${pollMs}'`,
          )
        const flag = (name: string, value: string | undefined) => {
          if (value === undefined) return undefined
          if (value !== 'true' && value !== 'false')
            throw new UsageError(`--${name} must be true or false, not '${value}'`)
          return value === 'true'
        }
        const heavy = flag('heavy-rpc', heavyRpc)
        const project = await admin.setFeatures(id, {
          email: flag('email', email),
          analytics: flag('analytics', analytics),
          history: flag('history', history),
          pendingTransactionsPollMs:
            pollMs === undefined ? undefined : pollMs === 'off' ? null : Number(pollMs),
          heavyRpc: heavy,
          socials:
            socials === undefined
              ? undefined
              : socials
                  .split(',')
                  .map((provider) => provider.trim())
                  .filter(Boolean),
        })
        if (heavy !== undefined)
          out(`Heavy RPC calls of '${project.id}' are ${project.heavyRpc ? 'on' : 'off'}.`)
        out(`Updated the features of '${project.id}'.`)
        out(describe(project))
        return 0
      }
      case 'set-mail-budget': {
        const { values } = parse(() =>
          parseArgs({
            args: [...rest],
            options: {
              id: { type: 'string' },
              mails: { type: 'string' },
              default: { type: 'boolean' },
            },
            strict: true,
          }),
        )
        const id = required(values.id, '--id')
        if ((values.mails === undefined) === (values.default !== true))
          throw new UsageError('Give either --mails N or --default')
        const mails = values.mails === undefined ? null : Number(values.mails)
        if (mails !== null && !/^\d+$/.test(values.mails ?? ''))
          throw new UsageError(`--mails must be a whole number, not '${values.mails}'`)
        const budget = await admin.setMailBudget(id, mails)
        out(`Set the mail budget of '${id}' to ${describeMailBudget(budget)}.`)
        return 0
      }
      case 'spam': {
        const { values } = parse(() =>
          parseArgs({
            args: [...rest],
            options: {
              id: { type: 'string' },
              add: { type: 'string', multiple: true },
              remove: { type: 'string', multiple: true },
            },
            strict: true,
          }),
        )
        const id = required(values.id, '--id')
        const { contracts } = await admin.setSpam(id, { add: values.add, remove: values.remove })
        out(
          contracts.length === 0
            ? `'${id}' flags no contract as spam.`
            : `'${id}' flags ${contracts.length} contract(s) as spam:`,
        )
        for (const contract of contracts) out(`  ${contract}`)
        return 0
      }
      case 'stats': {
        const { id, days } = idAndDays(rest, 7)
        for (const line of describeStats(await admin.stats(id, days))) out(line)
        return 0
      }
      case 'usage': {
        const { id, days } = idAndDays(rest, 1)
        const usage = await admin.usage(id, days)
        const span = days === 1 ? 'today (UTC)' : `the last ${days} days (UTC)`
        out(`${id}  usage over ${span}`)
        out(`  mail budget: ${describeMailBudget(usage.mailBudget)}`)
        out(`  mails past the budget (with a proof of work): ${usage.overflowMails}`)
        out(
          `  proof-of-work challenges: ${usage.challengesIssued} issued, ${usage.challengesSolved} solved`,
        )
        const rpc = usage.rpcBudget
        out(
          `  RPC budget (${rpc.calls} calls per ${rpc.windowSeconds} s) spent in ${rpc.windowsOver} window(s); calls served past it: ${rpc.callsOver}`,
        )
        return 0
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out(usage)
        return command === undefined ? 1 : 0
      default:
        throw new UsageError(`Unknown command '${command}'`)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`Error: ${error.shortMessage}\n`)
      err(usage)
      return 1
    }
    if (isRefusal(error)) {
      err(`Error: ${error.shortMessage}`)
      return 1
    }
    throw error
  }
}

/** Runs a `parseArgs` call, turning its errors (unknown option, missing value) into usage errors. */
function parse<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
}

/** `--id ID [--days N]` (usage, stats): N whole, 1 to 366, `fallback` when absent. */
function idAndDays(args: readonly string[], fallback: number): { id: string; days: number } {
  const { values } = parse(() =>
    parseArgs({
      args: [...args],
      options: { id: { type: 'string' }, days: { type: 'string' } },
      strict: true,
    }),
  )
  const id = required(values.id, '--id')
  const days = values.days === undefined ? fallback : Number(values.days)
  if (!Number.isInteger(days) || days < 1 || days > 366)
    throw new UsageError(`--days must be a whole number from 1 to 366, not '${values.days}'`)
  return { id, days }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required`)
  return value.trim()
}

/** A project's mail budget in words. */
function describeMailBudget(budget: ProjectUsage['mailBudget']) {
  return `${budget.mails} mails per ${budget.windowMinutes} minutes${budget.isDefault ? ' (the default)' : ''}`
}

function describe(project: ProjectView): string {
  const refused = project.refusedOrigins.map(
    (origin) => `\n    ${origin}  (refused, never served: set the origins again)`,
  )
  const origins =
    project.allowedOrigins.length > 0 || refused.length > 0
      ? [...project.allowedOrigins.map((origin) => `\n    ${origin}`), ...refused].join('')
      : ' (none: dev hosts only)'
  const [defaultNetwork, ...otherNetworks] = project.networks
  const networks = [
    `${defaultNetwork} (default)`,
    ...otherNetworks,
    ...project.refusedNetworks.map((network) => `${network} (unknown, never served)`),
  ].join(' ')
  const features = Object.entries(project.features)
    .map(([name, value]) => `${name}=${Array.isArray(value) ? value.join('|') || '-' : value}`)
    .join(' ')
  const rpc = project.heavyRpc ? 'on' : 'off'
  return `${project.id}  ${project.name}\n  origins:${origins}\n  networks: ${networks}\n  features: ${features}\n  heavy RPC calls: ${rpc}`
}

/**
 * What came from elsewhere, safe to print to a terminal: control characters
 * (escape sequences, line breaks) shown as `\uXXXX`. The API takes only
 * plain event names now; rows stored before may hold anything.
 */
const isControl = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f)
const printable = (text: string) =>
  Array.from(text, (char) => {
    const code = char.charCodeAt(0)
    return isControl(code) ? `\\u${code.toString(16).padStart(4, '0')}` : char
  }).join('')

/** `stats`'s lines: totals, the funnel with its ratios, then each day's counts. */
export function describeStats(stats: ProjectStats): string[] {
  const span = stats.days === 1 ? 'today (UTC)' : `the last ${stats.days} days (UTC)`
  const lines = [`${stats.id}  widget events over ${span}`]
  if (stats.totals.length === 0)
    lines.push('  no events (is analytics on? set-features --analytics true)')
  const width = Math.max(0, ...stats.totals.map(({ event }) => event.length))
  for (const { event, count } of stats.totals)
    lines.push(`  ${printable(event).padEnd(width)}  ${count}`)
  lines.push(`  error reports: ${stats.errorReports}`)
  const { opened, choseWallet, connected } = stats.funnel
  const share = (part: number) => (opened === 0 ? '' : ` (${Math.round((part / opened) * 100)} %)`)
  lines.push(
    `  connect funnel (visitors): opened ${opened} → chose a wallet ${choseWallet}${share(choseWallet)} → connected ${connected}${share(connected)}`,
  )
  const days = [...new Set(stats.daily.map(({ day }) => day))]
  for (const day of days)
    lines.push(
      `  ${day}  ${stats.daily
        .filter((row) => row.day === day)
        .map(({ event, count }) => `${printable(event)} ${count}`)
        .join(', ')}`,
    )
  return lines
}
