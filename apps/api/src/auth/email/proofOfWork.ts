/**
 * Proof-of-work challenges (SECURITY.md 22): what a mail request must carry
 * once its project's shared mail budget is spent, so that budget raises the
 * cost of a mail instead of refusing it.
 *
 * - A challenge is 144 random bits (base64url), valid
 *   `powChallengeTtlSeconds`, for one project, one address and one purpose.
 *   The database keeps only the SHA-256 of the challenge together with what
 *   it is bound to, so every replica can check it and a challenge asked for
 *   one address never passes for another.
 * - The work: a decimal `nonce` such that SHA-256 of the UTF-8 text
 *   `challenge + nonce` starts with `difficulty` zero bits (2^difficulty
 *   hashes on average). Checking it costs one hash.
 * - `spendChallenge` deletes the row before it checks the work: a challenge
 *   is used once, whatever the outcome, and two replicas cannot both spend it.
 * - The difficulty rises with the project's overflow (`powDifficulty`).
 */
import { createHash, randomBytes } from 'node:crypto'
import type { ProofOfWork, ProofOfWorkChallenge } from '@porthole/protocol/Embedded'
import { leadingZeroBits } from '@porthole/protocol/ProofOfWork'
import type { z } from 'zod'
import type { Queryable } from '../../db/db.js'

/** A challenge as the API sends it: `{ challenge, difficulty }`. */
export type Challenge = z.infer<typeof ProofOfWorkChallenge>

/** Random bytes per challenge: 144 bits, 24 base64url characters. */
export const powChallengeBytes = 18
/** How long a challenge may be solved and sent back. */
export const powChallengeTtlSeconds = 5 * 60
/** Zero bits asked for while the overflow is below one budget. */
export const powBaseDifficultyBits = 15
/**
 * Zero bits asked of a request whose network prefix (IPv4 /24, IPv6 /56)
 * spent its mail bucket while the project's budget is not spent: a little
 * more than the budget's start, so sharing a busy prefix costs a visitor
 * about a second and a script sending on from it pays for each mail.
 */
export const powPrefixDifficultyBits = powBaseDifficultyBits + 1
/** The most zero bits ever asked for (tens of seconds at 4× CPU slowdown; see bench/pow.ts). */
export const powMaxDifficultyBits = 20

/** What a mail request is for: a challenge for one never passes for another. */
export type MailPurpose = 'login' | 'email-update'

/** What a challenge is bound to: the project, the address (lower case) and the purpose. */
export type PowBinding = { projectId: string; email: string; purpose: MailPurpose }

/**
 * The difficulty for a project whose shared budget of `budget` mails per
 * window is spent and `overflow` mails have gone out past it in the window:
 * `powBaseDifficultyBits + floor(log2(1 + overflow / budget))`, at most
 * `powMaxDifficultyBits`. So 15 bits at the budget, one more bit each time
 * the overflow doubles (16 from one budget over, 17 from three, 18 from
 * seven, …, 20 from 31 budgets over).
 */
export function powDifficulty(overflow: number, budget: number): number {
  const doublings = Math.floor(Math.log2(1 + Math.max(0, overflow) / Math.max(1, budget)))
  return Math.min(powMaxDifficultyBits, powBaseDifficultyBits + doublings)
}

/** SHA-256 of the UTF-8 text `challenge + nonce`: the hash whose leading zero bits count. */
export function powHash(challenge: string, nonce: string): Buffer {
  return createHash('sha256').update(`${challenge}${nonce}`, 'utf8').digest()
}

/**
 * Finds the nonce of a challenge, with node's SHA-256 (tests and tools; the
 * secure frame solves in the visitor's browser).
 */
export function solveChallenge({ challenge, difficulty }: Challenge): string {
  for (let nonce = 0; ; nonce++) {
    if (leadingZeroBits(powHash(challenge, String(nonce))) >= difficulty) return String(nonce)
  }
}

/** The row's key: the SHA-256 of the challenge and what it is bound to, never the challenge. */
function bindingSha256(challenge: string, { projectId, email, purpose }: PowBinding): string {
  return createHash('sha256')
    .update(JSON.stringify(['pow', projectId, purpose, email, challenge]))
    .digest('hex')
}

/** Makes and stores a new challenge of `difficulty` bits for `binding`. */
export async function issueChallenge(
  db: Queryable,
  binding: PowBinding,
  difficulty: number,
): Promise<Challenge> {
  const challenge = randomBytes(powChallengeBytes).toString('base64url')
  await db.query(
    `INSERT INTO pow_challenges (binding_sha256, difficulty, expires_at)
     VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [bindingSha256(challenge, binding), difficulty, powChallengeTtlSeconds],
  )
  return { challenge, difficulty }
}

/**
 * Spends the challenge of `proof` and tells whether its work is done: false
 * for a challenge never issued for `binding` (another address, project or
 * purpose), already spent, expired, or with a nonce short of its difficulty.
 */
export async function spendChallenge(
  db: Queryable,
  binding: PowBinding,
  proof: ProofOfWork,
): Promise<boolean> {
  const [row] = await db.query<{ difficulty: number; expired: boolean }>(
    `DELETE FROM pow_challenges WHERE binding_sha256 = $1
     RETURNING difficulty, expires_at <= now() AS expired`,
    [bindingSha256(proof.challenge, binding)],
  )
  if (row === undefined || row.expired) return false
  return leadingZeroBits(powHash(proof.challenge, proof.nonce)) >= Number(row.difficulty)
}

/** Deletes expired challenges (the server runs this now and then). */
export async function prunePowChallenges(db: Queryable): Promise<number> {
  const rows = await db.query('DELETE FROM pow_challenges WHERE expires_at <= now() RETURNING 1')
  return rows.length
}
