/**
 * `npm run project -- [--api API_URL] <command>`: manage projects. Run
 * `npm run project -- help` for the commands.
 *
 * - With `--api`, through that running API's admin endpoints, with the
 *   `ADMIN_TOKEN` of this environment (the API's own): nothing stops.
 * - Without it, in the API's database, opened here with the same environment
 *   variables as the server (DATABASE_URL, PGLITE_DIR; PGlite needs the API
 *   stopped) and the same RPC_UPSTREAMS (to warn of networks without one).
 */

import { createDbAdmin, createHttpAdmin } from './admin/admin.js'
import { runProjectCommand } from './commands.js'
import { createDb } from './db/db.js'
import { migrate } from './db/migrations.js'
import { configFromEnv } from './http/config.js'
import { BaseError } from './http/errors.js'

const io = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) }

async function main(): Promise<number> {
  const argv = process.argv.slice(2)
  if (argv[0] === '--api' || argv[0]?.startsWith('--api=')) {
    const apiUrl = argv[0] === '--api' ? argv[1] : argv[0].slice('--api='.length)
    const token = process.env.ADMIN_TOKEN
    if (!apiUrl) throw new BaseError('--api needs the API URL, e.g. --api https://api.example.com')
    if (!token) throw new BaseError("--api needs ADMIN_TOKEN in the environment (the API's own)")
    const admin = createHttpAdmin({ apiUrl, token })
    return runProjectCommand(argv.slice(argv[0] === '--api' ? 2 : 1), { ...io, admin })
  }
  const config = configFromEnv(process.env)
  const db = await createDb(config)
  try {
    await migrate(db)
    const admin = createDbAdmin({ db, rpcUpstreams: config.rpcUpstreams })
    return await runProjectCommand(argv, { ...io, admin })
  } finally {
    await db.close()
  }
}

main().then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    console.error(`Error: ${error instanceof BaseError ? error.shortMessage : String(error)}`)
    process.exitCode = 1
  },
)
