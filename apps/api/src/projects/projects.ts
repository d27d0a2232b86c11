import {
  defaultNetworks,
  Features,
  ProjectId,
  SocialProvider,
  socialProviders,
} from '@porthole/protocol/Api'
import type { Context } from 'hono'
import { z } from 'zod'
import type { Db, Queryable } from '../db/db.js'
import { type Config, productionPrefix } from '../http/config.js'
import { HttpError, ProjectError } from '../http/errors.js'
import { parsePatterns, readStoredPatterns } from '../http/origins.js'
import { parseInput, readQuery } from '../http/request.js'
import { defaultFeatures, Project } from '../http/schemas.js'
import { parseNetworks, readStoredNetworks } from './networks.js'

const IdRow = z.object({ id: z.string() })
const ProjectRow = z.object({
  id: z.string(),
  name: z.string(),
  // Entries are checked one by one (`readStoredPatterns`), not trusted as stored.
  allowed_origins: z.array(z.unknown()),
  features: z.unknown(),
  // Checked entry by entry (`readStoredNetworks`), like the origins.
  networks: z.unknown(),
  heavy_rpc: z.boolean(),
  created_at: z.coerce.date(),
})

const columns = 'id, name, allowed_origins, features, networks, heavy_rpc, created_at'

function fromRow(row: unknown): Project {
  const parsed = ProjectRow.parse(row)
  // SECURITY.md 5 at read time: a pattern that could not be saved is never used.
  const origins = readStoredPatterns(parsed.allowed_origins)
  const networks = readStoredNetworks(parsed.networks)
  return Project.parse({
    id: parsed.id,
    name: parsed.name,
    allowedOrigins: origins.allowed,
    refusedOrigins: origins.refused,
    // Stored features are re-checked on read; a partial object gains the defaults.
    features: { ...defaultFeatures, ...(parsed.features as object) },
    networks: networks.networks,
    refusedNetworks: networks.refused,
    heavyRpc: parsed.heavy_rpc,
    createdAt: parsed.created_at,
  })
}

/** The `NOTIFY` channel of a changed project (`projects/cache.ts`); the payload is its id. */
export const projectChangedChannel = 'porthole_project_changed'

/** Tells every API process that project `id` changed, so cached copies are dropped. */
async function announceProjectChanged(db: Db, id: string): Promise<void> {
  await db.notify(projectChangedChannel, id)
}

/** The project with this id, or `undefined`. */
export async function getProject(db: Queryable, id: string): Promise<Project | undefined> {
  const [row] = await db.query(`SELECT ${columns} FROM projects WHERE id = $1`, [id])
  return row === undefined ? undefined : fromRow(row)
}

/** Every project, oldest first. */
export async function listProjects(db: Queryable): Promise<Project[]> {
  const rows = await db.query(`SELECT ${columns} FROM projects ORDER BY created_at, id`)
  return rows.map(fromRow)
}

export const CreateProjectInput = z.strictObject({
  id: ProjectId,
  name: z.string().trim().min(1, 'must not be empty').max(200),
  allowedOrigins: z.array(z.string()).default([]),
  features: z.optional(Features),
  /** Checked by `parseNetworks`; absent: `Api.defaultNetworks`. */
  networks: z.array(z.string()).optional(),
})
export type CreateProjectInput = z.input<typeof CreateProjectInput>

/**
 * Creates a project; origins (SECURITY.md 5) and networks are validated.
 * Throws `ProjectError`, `InvalidOriginError` or `InvalidNetworkError`.
 */
export async function createProject(db: Db, input: CreateProjectInput): Promise<Project> {
  const parsed = CreateProjectInput.safeParse(input)
  if (!parsed.success) throw new ProjectError(describe(parsed.error))
  const { id, name, features = defaultFeatures } = parsed.data
  const origins = parsePatterns(parsed.data.allowedOrigins)
  const networks = parseNetworks(parsed.data.networks ?? defaultNetworks)
  const [row] = await db.query(
    `INSERT INTO projects (id, name, allowed_origins, features, networks)
     VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb)
     ON CONFLICT (id) DO NOTHING
     RETURNING ${columns}`,
    [id, name, JSON.stringify(origins), JSON.stringify(features), JSON.stringify(networks)],
  )
  if (row === undefined) throw new ProjectError(`A project with id '${id}' already exists`)
  await announceProjectChanged(db, id)
  return fromRow(row)
}

/** Replaces a project's allowed origins (validated). Throws `ProjectError` or `InvalidOriginError`. */
export async function setProjectOrigins(
  db: Db,
  id: string,
  allowedOrigins: readonly string[],
): Promise<Project> {
  const origins = parsePatterns(allowedOrigins)
  const [row] = await db.query(
    `UPDATE projects SET allowed_origins = $2::jsonb, updated_at = now()
     WHERE id = $1
     RETURNING ${columns}`,
    [id, JSON.stringify(origins)],
  )
  if (row === undefined) throw new ProjectError(`No project with id '${id}'`)
  await announceProjectChanged(db, id)
  return fromRow(row)
}

/**
 * Replaces a project's networks (validated; the first is the default).
 * Throws `ProjectError` or `InvalidNetworkError`.
 */
export async function setProjectNetworks(
  db: Db,
  id: string,
  networks: readonly string[],
): Promise<Project> {
  const parsed = parseNetworks(networks)
  const [row] = await db.query(
    `UPDATE projects SET networks = $2::jsonb, updated_at = now()
     WHERE id = $1
     RETURNING ${columns}`,
    [id, JSON.stringify(parsed)],
  )
  if (row === undefined) throw new ProjectError(`No project with id '${id}'`)
  await announceProjectChanged(db, id)
  return fromRow(row)
}

/**
 * Turns a project's email and social logins, and its analytics, on or off
 * (what is left out is kept). `socials` are the providers Connect shows, in order.
 */
export async function setProjectFeatures(
  db: Db,
  id: string,
  logins: {
    email?: boolean | undefined
    socials?: readonly string[] | undefined
    analytics?: boolean | undefined
    history?: boolean | undefined
    pendingTransactionsPollMs?: number | null | undefined
  },
): Promise<Project> {
  const socials =
    logins.socials === undefined
      ? undefined
      : z.array(SocialProvider).safeParse([...new Set(logins.socials)])
  const pollMs = logins.pendingTransactionsPollMs
  if (pollMs != null && !(Number.isInteger(pollMs) && pollMs >= 1_000 && pollMs <= 3_600_000))
    throw new ProjectError(
      `The pending transactions' polling must be 1000 to 3600000 ms, or off; not ${pollMs}`,
    )
  if (socials && !socials.success)
    throw new ProjectError(
      `Unknown social login in '${logins.socials?.join(',')}': use ${socialProviders.join(', ')}`,
    )
  const [row] = await db.query(
    `UPDATE projects SET
       features = features
         || CASE WHEN $2::boolean IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('email', $2::boolean) END
         || CASE WHEN $3::jsonb IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('socials', $3::jsonb) END
         || CASE WHEN $4::boolean IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('analytics', $4::boolean) END
         || CASE WHEN $5::boolean IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('history', $5::boolean) END
         || CASE WHEN $6::text IS NULL THEN '{}'::jsonb
                 ELSE jsonb_build_object('pendingTransactionsPollMs', $6::jsonb) END,
       updated_at = now()
     WHERE id = $1
     RETURNING ${columns}`,
    [
      id,
      logins.email ?? null,
      socials ? JSON.stringify(socials.data) : null,
      logins.analytics ?? null,
      logins.history ?? null,
      // JSON, so null (polling off) is told apart from absent (unchanged).
      logins.pendingTransactionsPollMs === undefined
        ? null
        : JSON.stringify(logins.pendingTransactionsPollMs),
    ],
  )
  if (row === undefined) throw new ProjectError(`No project with id '${id}'`)
  await announceProjectChanged(db, id)
  return fromRow(row)
}

/**
 * Lets the RPC proxy forward heavy parameters for a project (state and block
 * overrides, eth_getLogs over any range), or stops it (the default).
 */
export async function setProjectHeavyRpc(db: Db, id: string, on: boolean): Promise<Project> {
  const [row] = await db.query(
    `UPDATE projects SET heavy_rpc = $2, updated_at = now()
     WHERE id = $1
     RETURNING ${columns}`,
    [id, on],
  )
  if (row === undefined) throw new ProjectError(`No project with id '${id}'`)
  await announceProjectChanged(db, id)
  return fromRow(row)
}

/** How often a project spent its shared RPC budget, and the calls served past it. */
export type RpcBudgetUsage = {
  /** Budget windows (minutes by default) in which the budget was spent. */
  windowsOver: number
  /** Calls served past the budget, at the tightened per-IP limits. */
  callsOver: number
  /** The last UTC day with a spent window, as `YYYY-MM-DD`, or `null`. */
  lastDay: string | null
}

/** A project's spent RPC budget over the last `days` UTC days, today included. */
export async function rpcBudgetUsage(
  db: Queryable,
  id: string,
  days = 30,
): Promise<RpcBudgetUsage> {
  const [row] = await db.query<{ windows: number; calls: string; last_day: string | null }>(
    `SELECT coalesce(sum(windows_spent), 0)::int AS windows,
            coalesce(sum(overflow_calls), 0)::text AS calls,
            max(day)::text AS last_day
     FROM rpc_budget_counts
     WHERE project_id = $1 AND day > (now() AT TIME ZONE 'UTC')::date - $2::int`,
    [id, days],
  )
  return {
    windowsOver: Number(row?.windows ?? 0),
    callsOver: Number(row?.calls ?? 0),
    lastDay: row?.last_day ?? null,
  }
}

function describe(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`)
    .join('; ')
}

/**
 * Checks the `projectId` query parameter of a call: missing or malformed
 * gives 400, unknown gives 403. Then parses the whole query with `schema`.
 */
export async function readProjectQuery<S extends z.core.$ZodType>(
  c: Context,
  db: Db,
  schema: S,
): Promise<{ project: Project; query: z.infer<S> }> {
  const raw = readQuery(c)
  const project = await requireProject(db, raw.projectId)
  return { project, query: parseInput(schema, raw, 'query') }
}

export async function requireProject(db: Db, projectId: string | undefined): Promise<Project> {
  const id = checkProjectId(projectId)
  const project = await getProject(db, id)
  if (!project) {
    throw new HttpError(403, 'unknown_project', `Unknown projectId '${id}'`)
  }
  return project
}

/** A call's `projectId`, checked: missing or malformed gives 400. */
export function checkProjectId(projectId: string | undefined): string {
  if (projectId === undefined || projectId === '') {
    throw new HttpError(400, 'missing_project_id', 'The projectId query parameter is required')
  }
  const id = ProjectId.safeParse(projectId)
  if (!id.success) {
    throw new HttpError(
      400,
      'invalid_project_id',
      `Invalid projectId: ${id.error.issues[0]?.message}`,
    )
  }
  return id.data
}

/**
 * What `PORTHOLE_ENV=production` refuses in the database, once it is
 * migrated: a project with email login while `SMTP_URL` is unset (its codes
 * would go nowhere). One line, naming the variable and the projects.
 */
export async function productionRefusalsInDb(db: Queryable, config: Config): Promise<string[]> {
  if (config.portholeEnv !== 'production' || config.smtpUrl !== undefined) return []
  const rows = await db.query(
    `SELECT id FROM projects WHERE features -> 'email' = 'true'::jsonb ORDER BY id LIMIT 6`,
  )
  if (rows.length === 0) return []
  const ids = rows.slice(0, 5).map((row) => `'${IdRow.parse(row).id}'`)
  const more = rows.length > 5 ? ', …' : ''
  return [
    `${productionPrefix} SMTP_URL must be set (email login is on for ${rows.length === 1 ? 'project' : 'projects'} ${ids.join(', ')}${more})`,
  ]
}
