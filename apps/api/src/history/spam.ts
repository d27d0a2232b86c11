import { z } from 'zod'
import type { Db } from '../db/db.js'
import { ProjectError } from '../http/errors.js'

/** A contract on a network, as the operator names it: CAIP-10, `eip155:<chain>:0x<40 hex>`. */
export const SpamContract = z
  .string()
  .regex(
    /^eip155:[0-9]{1,32}:0x[0-9a-fA-F]{40}$/,
    'must be a CAIP-10 contract such as eip155:1:0x1234…(40 hex digits)',
  )

/** Most contracts one project may flag. */
export const maxSpamContracts = 10_000

/**
 * Flags (`add`) and unflags (`remove`) NFT contracts as spam for project
 * `id`'s history (`nft_info.flags.is_spam`); resolves to the project's list,
 * CAIP-10, sorted. The rule's flags (a mass mint) are the API's, not the
 * project's: removing one here does not lift them.
 */
export async function setProjectSpam(
  db: Db,
  id: string,
  changes: { add?: readonly string[] | undefined; remove?: readonly string[] | undefined },
): Promise<string[]> {
  const parse = (values: readonly string[] | undefined) =>
    (values ?? []).map((value) => {
      const parsed = SpamContract.safeParse(value)
      if (!parsed.success)
        throw new ProjectError(`'${value.slice(0, 100)}' ${parsed.error.issues[0]?.message}`)
      const at = value.lastIndexOf(':')
      return { chainId: value.slice(0, at), address: value.slice(at + 1).toLowerCase() }
    })
  const add = parse(changes.add)
  const remove = parse(changes.remove)
  return db.transaction(async (tx) => {
    const [project] = await tx.query('SELECT 1 FROM projects WHERE id = $1', [id])
    if (!project) throw new ProjectError(`No project with id '${id}'`)
    for (const { chainId, address } of remove)
      await tx.query(
        'DELETE FROM history_spam WHERE project_id = $1 AND chain_id = $2 AND address = $3',
        [id, chainId, address],
      )
    for (const { chainId, address } of add)
      await tx.query(
        `INSERT INTO history_spam (project_id, chain_id, address, reason)
         VALUES ($1, $2, $3, 'operator') ON CONFLICT DO NOTHING`,
        [id, chainId, address],
      )
    const rows = await tx.query<{ contract: string }>(
      `SELECT chain_id || ':' || address AS contract FROM history_spam
       WHERE project_id = $1 ORDER BY chain_id, address`,
      [id],
    )
    if (rows.length > maxSpamContracts)
      throw new ProjectError(`A project may flag at most ${maxSpamContracts} contracts`)
    return rows.map((row) => row.contract)
  })
}
