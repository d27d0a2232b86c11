/**
 * What a Solana transaction does, for its approval (SECURITY.md 20): pure,
 * read with the same strict reader that signs it (formats/solanaMessage.ts).
 * Shown: the fee payer and signers, then each instruction: SOL transfers
 * (System program) and SPL token transfers and approvals with their amounts,
 * every program id, and "Unknown instruction" with its raw data otherwise.
 */
import { base58, base64 } from '@scure/base'
import { formatUnits } from 'viem'
import { type Instruction, type Message, readTransaction } from '../formats/solanaMessage.js'
import type { Field, Section } from './decode.js'

export const systemProgram = '11111111111111111111111111111111'
export const tokenProgram = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const token2022Program = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PZXM4BLLoaHTxHw'

const programNames: Readonly<Record<string, string>> = {
  [systemProgram]: 'System Program',
  [tokenProgram]: 'Token Program',
  [token2022Program]: 'Token-2022 Program',
  ComputeBudget111111111111111111111111111111: 'Compute Budget Program',
}

const maxU64 = 2n ** 64n - 1n
const maxDataShown = 512

export type SolanaCurrency = { readonly symbol: string | undefined; readonly decimals: number }

const unknownNote =
  'This transaction has instructions Porthole cannot decode: approve only if you trust this site.'

/** Little-endian unsigned integer of `size` bytes at `offset`, or `undefined` past the end. */
function readUint(data: Uint8Array, offset: number, size: number): bigint | undefined {
  if (offset + size > data.length) return
  let value = 0n
  for (let index = size - 1; index >= 0; index--)
    value = (value << 8n) | BigInt(data[offset + index] ?? 0)
  return value
}

function toHex(bytes: Uint8Array): string {
  const hex = Array.from(bytes.subarray(0, maxDataShown), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('')
  const more = bytes.length - maxDataShown
  return more > 0 ? `0x${hex}… (${more} more bytes not shown)` : `0x${hex}`
}

/** Reads a message's accounts by index: a static key, or one from an address lookup table. */
function accountsOf(message: Message) {
  const keys = message.keys.map((key) => base58.encode(key))
  return (index: number | undefined): string => {
    if (index === undefined) return 'none'
    const key = keys[index]
    if (key !== undefined) return key
    return `account ${index - keys.length + 1} from an address lookup table`
  }
}

function describeInstruction(
  instruction: Instruction,
  account: (index: number | undefined) => string,
  currency: SolanaCurrency,
): { fields: Field[]; known: boolean; warning?: string } {
  const program = account(instruction.programIndex)
  const { data, accounts } = instruction
  const programField: Field = {
    label: 'Program',
    value: programNames[program] ? `${program} (${programNames[program]})` : program,
    mono: true,
  }
  const sol = (lamports: bigint) =>
    `${formatUnits(lamports, currency.decimals)} ${currency.symbol ?? 'SOL'}`

  if (program === systemProgram) {
    const kind = readUint(data, 0, 4)
    if (kind === 2n && data.length === 12) {
      const lamports = readUint(data, 4, 8) ?? 0n
      return {
        known: true,
        fields: [
          { label: 'Action', value: 'Transfer SOL' },
          { label: 'From', value: account(accounts[0]), mono: true },
          { label: 'To', value: account(accounts[1]), mono: true },
          { label: 'Amount', value: sol(lamports) },
          programField,
        ],
      }
    }
    if (kind === 0n && data.length === 52) {
      const lamports = readUint(data, 4, 8) ?? 0n
      return {
        known: true,
        fields: [
          { label: 'Action', value: 'Create account' },
          { label: 'Funded by', value: account(accounts[0]), mono: true },
          { label: 'New account', value: account(accounts[1]), mono: true },
          { label: 'Amount', value: sol(lamports) },
          { label: 'Owner program', value: base58.encode(data.subarray(20, 52)), mono: true },
          programField,
        ],
      }
    }
  }

  if (program === tokenProgram || program === token2022Program) {
    const kind = data[0]
    const amount = readUint(data, 1, 8)
    const checked = kind === 12 || kind === 13
    const decimals = checked ? data[9] : undefined
    const length = checked ? 10 : 9
    if (amount !== undefined && data.length === length) {
      const tokens =
        decimals === undefined
          ? `${amount} (raw units: this instruction does not give the decimals)`
          : formatUnits(amount, decimals)
      if (kind === 3 || kind === 12) {
        const [source, mint, destination, owner] = checked
          ? accounts
          : [accounts[0], undefined, accounts[1], accounts[2]]
        return {
          known: true,
          fields: [
            { label: 'Action', value: 'Transfer tokens' },
            { label: 'Source account', value: account(source), mono: true },
            { label: 'Destination account', value: account(destination), mono: true },
            ...(checked ? [{ label: 'Mint', value: account(mint), mono: true }] : []),
            { label: 'Owner', value: account(owner), mono: true },
            { label: 'Token amount', value: tokens },
            programField,
          ],
        }
      }
      if (kind === 4 || kind === 13) {
        const [source, mint, delegate, owner] = checked
          ? accounts
          : [accounts[0], undefined, accounts[1], accounts[2]]
        return {
          known: true,
          ...(amount === maxU64
            ? { warning: 'This approval lets the delegate take all the tokens of that account.' }
            : {}),
          fields: [
            { label: 'Action', value: 'Allow a delegate to spend tokens' },
            { label: 'Token account', value: account(source), mono: true },
            { label: 'Delegate', value: account(delegate), mono: true },
            ...(checked ? [{ label: 'Mint', value: account(mint), mono: true }] : []),
            { label: 'Owner', value: account(owner), mono: true },
            { label: 'Allowance', value: amount === maxU64 ? 'unlimited' : tokens },
            programField,
          ],
        }
      }
    }
  }

  return {
    known: false,
    fields: [
      { label: 'Action', value: 'Unknown instruction' },
      programField,
      { label: 'Accounts', value: accounts.map((index) => account(index)).join(', ') || 'none' },
      { label: 'Data', value: toHex(data), mono: true },
    ],
  }
}

/**
 * The sections showing one base64 transaction: `heading` with its fee payer
 * and signers, then one section per instruction; and the notes to show above.
 * A transaction that cannot be read is shown encoded, with a note.
 */
export function describeSolanaTransaction(
  text: string,
  { heading, currency }: { heading: string; currency: SolanaCurrency },
): { sections: Section[]; notes: string[] } {
  let message: Message
  try {
    ;({ message } = readTransaction(base64.decode(text)))
  } catch {
    return {
      sections: [{ type: 'text', title: `${heading} (encoded)`, text, format: 'encoded' }],
      notes: ['A transaction could not be read: check it below.'],
    }
  }
  const account = accountsOf(message)
  const notes: string[] = []
  const signers = message.keys.slice(0, message.requiredSignatures).map((key) => base58.encode(key))
  const summary: Field[] = [
    { label: 'Fee payer', value: signers[0] ?? 'none', mono: true },
    { label: 'Signers', value: signers.join(', '), mono: true },
    { label: 'Version', value: message.version === 'legacy' ? 'legacy' : `v${message.version}` },
    { label: 'Recent blockhash', value: base58.encode(message.recentBlockhash), mono: true },
  ]
  if (message.lookups.length > 0) {
    summary.push({
      label: 'Address lookup tables',
      value: message.lookups.map((lookup) => base58.encode(lookup.table)).join(', '),
      mono: true,
    })
    notes.push(
      'Some accounts come from address lookup tables: they are shown by their position, not their address.',
    )
  }
  const sections: Section[] = [{ type: 'fields', title: heading, fields: summary }]
  const count = message.instructions.length
  if (count === 0) notes.push('This transaction has no instructions.')
  message.instructions.forEach((instruction, index) => {
    const { fields, known, warning } = describeInstruction(instruction, account, currency)
    if (!known && !notes.includes(unknownNote)) notes.push(unknownNote)
    if (warning !== undefined && !notes.includes(warning)) notes.push(warning)
    sections.push({
      type: 'fields',
      title: `${heading}: instruction ${index + 1} of ${count}`,
      fields,
    })
  })
  return { sections, notes }
}
