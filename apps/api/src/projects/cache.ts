/**
 * Projects kept in the process for `projectTtlMs`, for the answers every
 * widget load reads (`/projects/v1/origins`, `/appkit/v1/config`, the
 * project check of `/getWallets`). A change through `projects.ts` (the CLI,
 * `npm run project`) is announced on `projectChangedChannel`; every API
 * process listening drops that project at once (on PostgreSQL, across
 * replicas; on PGlite the CLI cannot run while the server has the database
 * open). The TTL bounds a missed announcement.
 */
import type { Context } from 'hono'
import type { z } from 'zod'
import type { Db } from '../db/db.js'
import { type CachedBody, createTtlCache, toCachedBody } from '../http/cache.js'
import { HttpError } from '../http/errors.js'
import { parseInput, readQuery } from '../http/request.js'
import type { Project } from '../http/schemas.js'
import { checkProjectId, getProject } from './projects.js'

/**
 * How long a project is served from memory without asking the database.
 * Part of the 40 s bound on a removed origin (README, "Caching").
 */
export const projectTtlMs = 10_000

/** Most projects kept; an unknown id is never kept, so only real projects count. */
export const maxCachedProjects = 1_000

/**
 * `Cache-Control` of the origins and config answers: browsers revalidate
 * (`max-age=0`, then at most `stale-while-revalidate` once), a CDN keeps them
 * `s-maxage`. Worst case for a removed origin, with no `Age` honoured:
 * `projectTtlMs` + s-maxage + stale-while-revalidate (CDN) +
 * stale-while-revalidate (browser) = 10 + 10 + 10 + 10 = 40 s.
 */
export const projectCacheControl = 'public, max-age=0, s-maxage=10, stale-while-revalidate=10'

/** A cached project and the answers built from it, each built once. */
export type CachedProject = {
  readonly project: Project
  /** The answer `name` for this project: built by `build` the first time, then reused. */
  answer(name: string, build: (project: Project) => unknown): CachedBody
}

export type ProjectCache = {
  /**
   * The project of the call's `projectId` (400 when missing or malformed,
   * 403 when unknown, as `readProjectQuery`), then the whole query parsed
   * with `schema`.
   */
  read<S extends z.ZodType>(
    c: Context,
    schema: S,
  ): Promise<{ cached: CachedProject; query: z.infer<S> }>
  /** Drops `id`, or every project for `null` (announcements may have been missed). */
  changed(id: string | null): void
}

export function createProjectCache({
  db,
  ttlMs = projectTtlMs,
  now,
}: {
  db: Db
  ttlMs?: number | undefined
  now?: (() => number) | undefined
}): ProjectCache {
  const projects = createTtlCache<CachedProject>({ ttlMs, maxEntries: maxCachedProjects, now })
  const load = async (id: string) => {
    const project = await getProject(db, id)
    return project === undefined ? undefined : withAnswers(project)
  }
  return {
    async read(c, schema) {
      const raw = readQuery(c)
      const id = checkProjectId(raw.projectId)
      const cached = await projects.get(id, () => load(id))
      if (cached === undefined) {
        throw new HttpError(403, 'unknown_project', `Unknown projectId '${id}'`)
      }
      return { cached, query: parseInput(schema, raw, 'query') }
    },
    changed(id) {
      if (id === null) projects.clear()
      else projects.delete(id)
    },
  }
}

function withAnswers(project: Project): CachedProject {
  const answers = new Map<string, CachedBody>()
  return {
    project,
    answer(name, build) {
      let body = answers.get(name)
      if (body === undefined) {
        body = toCachedBody(build(project))
        answers.set(name, body)
      }
      return body
    },
  }
}
