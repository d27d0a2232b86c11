/**
 * `npm run project -- <command>`: manage projects in the API's database.
 * Run `npm run project -- help` for the commands. Uses the same environment
 * variables as the server (DATABASE_URL, PGLITE_DIR).
 */
import { runProjectCommand } from './commands.js'
import { createDb } from './db/db.js'
import { migrate } from './db/migrations.js'
import { configFromEnv } from './http/config.js'
import { BaseError } from './http/errors.js'

async function main(): Promise<number> {
  const argv = process.argv.slice(2)
  const config = configFromEnv(process.env)
  const db = await createDb(config)
  try {
    await migrate(db)
    return await runProjectCommand(argv, {
      db,
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      // The upstreams of this environment: run the command with the API's RPC_UPSTREAMS.
      rpcUpstreams: config.rpcUpstreams,
    })
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
