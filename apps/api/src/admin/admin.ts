/**
 * Project administration, one set of operations with two ways in:
 *
 * - `createDbAdmin`: straight on the database. The API's admin endpoints
 *   (admin/routes.ts) use it, and the CLI when it opens the database
 *   itself (`npm run project`, PGlite with the API stopped, or PostgreSQL).
 * - `createHttpAdmin`: through a running API's admin endpoints, with its
 *   `ADMIN_TOKEN` (`npm run project -- --api URL`): no downtime on PGlite, and
 *   the answer says which networks that API has no RPC upstream for.
 *
 * Both answer `ProjectView`s (plain JSON) and throw `ProjectError` with the
 * same messages, so the CLI prints the same lines either way.
 */
import { isHttpsOrPrivate } from '@porthole/protocol/HostNames'
import { type ProjectStats, projectStats } from '../analytics/stats.js'
import {
  emailSendProjectLimit,
  mailBudgetCounts,
  projectMailBudget,
  setProjectMailBudget,
} from '../auth/email/codes.js'
import type { Db } from '../db/db.js'
import { setProjectSpam } from '../history/spam.js'
import type { Config } from '../http/config.js'
import {
  type BaseError,
  InvalidNetworkError,
  InvalidOriginError,
  ProjectError,
} from '../http/errors.js'
import type { Project } from '../http/schemas.js'
import {
  createProject,
  getProject,
  listProjects,
  rpcBudgetUsage,
  setProjectFeatures,
  setProjectHeavyRpc,
  setProjectNetworks,
  setProjectOrigins,
} from '../projects/projects.js'
import { rpcProjectBudget } from '../rpc/limits.js'

/** A project as the admin endpoints answer it. */
export type ProjectView = {
  id: string
  name: string
  allowedOrigins: string[]
  refusedOrigins: string[]
  networks: string[]
  refusedNetworks: string[]
  features: Project['features']
  heavyRpc: boolean
  /** The project's networks this API's RPC proxy has no upstream for (`RPC_UPSTREAMS`). */
  networksWithoutUpstream: string[]
}

export type FeatureChanges = {
  email?: boolean | undefined
  socials?: readonly string[] | undefined
  analytics?: boolean | undefined
  history?: boolean | undefined
  /** Milliseconds between the widget's checks of pending transactions; null turns polling off. */
  pendingTransactionsPollMs?: number | null | undefined
  heavyRpc?: boolean | undefined
}

/** A project's mail budget and, over `days` UTC days, what the operator's counters say. */
export type ProjectUsage = {
  id: string
  days: number
  mailBudget: { mails: number; windowMinutes: number; isDefault: boolean }
  overflowMails: number
  challengesIssued: number
  challengesSolved: number
  rpcBudget: { calls: number; windowSeconds: number; windowsOver: number; callsOver: number }
}

export type ProjectAdmin = {
  list(): Promise<ProjectView[]>
  create(input: {
    id: string
    name: string
    allowedOrigins: readonly string[]
    networks?: readonly string[] | undefined
  }): Promise<ProjectView>
  setOrigins(id: string, origins: readonly string[]): Promise<ProjectView>
  setNetworks(id: string, networks: readonly string[]): Promise<ProjectView>
  setFeatures(id: string, changes: FeatureChanges): Promise<ProjectView>
  /** `null`: back to the default budget. */
  setMailBudget(id: string, mails: number | null): Promise<ProjectUsage['mailBudget']>
  usage(id: string, days: number): Promise<ProjectUsage>
  /** The widget's events over `days` UTC days (analytics/stats.ts). */
  stats(id: string, days: number): Promise<ProjectStats>
  /** Flags and unflags NFT contracts (CAIP-10) as spam in the project's history; the list after. */
  setSpam(
    id: string,
    changes: { add?: readonly string[] | undefined; remove?: readonly string[] | undefined },
  ): Promise<{ contracts: string[] }>
}

export type { ProjectStats }

/** The errors an admin operation refuses bad input with (a 400 over HTTP, a message in the CLI). */
export const isRefusal = (error: unknown): error is BaseError =>
  error instanceof ProjectError ||
  error instanceof InvalidOriginError ||
  error instanceof InvalidNetworkError

export function createDbAdmin({
  db,
  rpcUpstreams,
}: {
  db: Db
  rpcUpstreams: Config['rpcUpstreams']
}): ProjectAdmin {
  const view = (project: Project): ProjectView => ({
    id: project.id,
    name: project.name,
    allowedOrigins: project.allowedOrigins,
    refusedOrigins: project.refusedOrigins,
    networks: project.networks,
    refusedNetworks: project.refusedNetworks,
    features: project.features,
    heavyRpc: project.heavyRpc,
    networksWithoutUpstream: project.networks.filter((network) => !(network in rpcUpstreams)),
  })
  const mailBudget = async (id: string) => {
    if ((await getProject(db, id)) === undefined)
      throw new ProjectError(`No project with the id '${id}'`)
    const mails = await projectMailBudget(db, id)
    return {
      mails,
      windowMinutes: emailSendProjectLimit.windowSeconds / 60,
      isDefault: mails === emailSendProjectLimit.limit,
    }
  }
  return {
    list: async () => (await listProjects(db)).map(view),
    create: async (input) =>
      view(
        await createProject(db, {
          id: input.id,
          name: input.name,
          allowedOrigins: [...input.allowedOrigins],
          ...(input.networks && { networks: [...input.networks] }),
        }),
      ),
    setOrigins: async (id, origins) => view(await setProjectOrigins(db, id, origins)),
    setNetworks: async (id, networks) => view(await setProjectNetworks(db, id, networks)),
    async setFeatures(id, { heavyRpc, ...features }) {
      // The features first: they are checked there (an unknown social login),
      // so a refused change writes nothing at all.
      const project = await setProjectFeatures(db, id, features)
      return view(heavyRpc === undefined ? project : await setProjectHeavyRpc(db, id, heavyRpc))
    },
    async setMailBudget(id, mails) {
      await setProjectMailBudget(db, id, mails)
      return mailBudget(id)
    },
    setSpam: async (id, changes) => ({ contracts: await setProjectSpam(db, id, changes) }),
    async stats(id, days) {
      if ((await getProject(db, id)) === undefined)
        throw new ProjectError(`No project with the id '${id}'`)
      return projectStats(db, id, days)
    },
    async usage(id, days) {
      const budget = await mailBudget(id)
      const counts = await mailBudgetCounts(db, id, days)
      const rpc = await rpcBudgetUsage(db, id, days)
      return {
        id,
        days,
        mailBudget: budget,
        overflowMails: counts.overflowMails,
        challengesIssued: counts.challengesIssued,
        challengesSolved: counts.challengesSolved,
        rpcBudget: {
          calls: rpcProjectBudget.limit,
          windowSeconds: rpcProjectBudget.windowSeconds,
          windowsOver: rpc.windowsOver,
          callsOver: rpc.callsOver,
        },
      }
    },
  }
}

/** The admin endpoints' paths, under the API's URL. */
export const adminPaths = {
  projects: '/admin/v1/projects',
  project: (
    id: string,
    what: 'origins' | 'networks' | 'features' | 'mail-budget' | 'usage' | 'stats' | 'spam',
  ) => `/admin/v1/projects/${encodeURIComponent(id)}/${what}`,
}

/** A running API's admin endpoints, called with its `ADMIN_TOKEN`. */
export function createHttpAdmin({
  apiUrl,
  token,
  fetch: fetchFn = fetch,
  timeoutMs = 15_000,
}: {
  apiUrl: string
  token: string
  fetch?: typeof fetch
  timeoutMs?: number
}): ProjectAdmin {
  // The token goes nowhere it could be read on the way, nor to another app of the origin.
  const base = URL.canParse(apiUrl) ? new URL(apiUrl) : undefined
  if (
    !base ||
    !isHttpsOrPrivate(base.href) ||
    base.pathname !== '/' ||
    base.search ||
    base.username
  )
    throw new ProjectError(
      `--api must be the API's origin, https (plain http only to this machine or a private network), not '${apiUrl}'`,
    )
  const call = async <T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => {
    const url = new URL(path, base)
    let response: Response
    try {
      response = await fetchFn(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (error) {
      throw new ProjectError(`The API at ${url.origin} could not be reached`, { cause: error })
    }
    const answer = (await response.json().catch(() => undefined)) as
      | { error?: { code?: string; message?: string } }
      | undefined
    if (response.ok) return answer as T
    const message = answer?.error?.message ?? `The API answered HTTP ${response.status}`
    // 401: a wrong token; 404 `not_found`: no such endpoint, the admin is off.
    const hint =
      response.status === 401 || answer?.error?.code === 'not_found'
        ? " (is ADMIN_TOKEN the API's, and is the API's admin on?)"
        : ''
    throw new ProjectError(`${message}${hint}`)
  }
  const json = <T>(method: 'POST' | 'PUT', path: string, body: unknown) =>
    call<T>(method, path, body)
  return {
    list: async () =>
      (await call<{ projects: ProjectView[] }>('GET', adminPaths.projects)).projects,
    create: (input) => json('POST', adminPaths.projects, input),
    setOrigins: (id, origins) => json('PUT', adminPaths.project(id, 'origins'), { origins }),
    setNetworks: (id, networks) => json('PUT', adminPaths.project(id, 'networks'), { networks }),
    setFeatures: (id, changes) => json('PUT', adminPaths.project(id, 'features'), changes),
    setMailBudget: (id, mails) => json('PUT', adminPaths.project(id, 'mail-budget'), { mails }),
    usage: (id, days) => call('GET', `${adminPaths.project(id, 'usage')}?days=${days}`),
    stats: (id, days) => call('GET', `${adminPaths.project(id, 'stats')}?days=${days}`),
    setSpam: (id, changes) => json('PUT', adminPaths.project(id, 'spam'), changes),
  }
}
