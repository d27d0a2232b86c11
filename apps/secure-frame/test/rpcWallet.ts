/**
 * Tests only: a logged-in embedded wallet for the RPC tests, over a scripted
 * node (the memory API's RPC proxy answers through `node`) and an approval
 * UI that answers `decide`.
 */
import { vi } from 'vitest'
import { toDisplay } from '../src/approval/decode.js'
import { connectEmail } from '../src/handlers/connectEmail.js'
import { connectOtp } from '../src/handlers/connectOtp.js'
import { handleRpc } from '../src/rpc/policy.js'
import type { ApprovalRequest, RequestApproval } from '../src/wallet/session.js'
import { createMemoryApi, type MemoryApiOptions } from './memoryApi.js'
import { createTestContext, loginWithEmail, type TestContext } from './testContext.js'

/** Test-only code: the build tests fail on a bundle that holds this marker. */
;(globalThis as Record<string, unknown>)['porthole:test-only'] = true

export const email = 'ada@example.com'
export const solanaMainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'

export type Node = (method: string, params: unknown) => unknown

/**
 * A node answering each method in `answers`: its value, or what its function
 * makes of the params. Any other method throws `unexpected <method>`.
 */
export function scriptedNode(answers: Record<string, unknown>): Node {
  return (method, params) => {
    if (!Object.hasOwn(answers, method)) throw new Error(`unexpected ${method}`)
    const answer = answers[method]
    return typeof answer === 'function' ? answer(params) : answer
  }
}

/**
 * A logged-in frame whose approval UI answers `decide`, over a scripted node,
 * or over `rpc` (e.g. the real API's proxy) when given.
 */
export async function wallet(
  options: { decide?: RequestApproval; node?: Node; rpc?: MemoryApiOptions['rpc'] } = {},
) {
  const node = vi.fn<Node>(options.node ?? (() => '0x0'))
  const api = createMemoryApi({
    rpc: options.rpc ?? (async (_, method, params) => node(method, params)),
  })
  const approvals: ApprovalRequest[] = []
  const decide = options.decide ?? (async () => {})
  const requestApproval = vi.fn<RequestApproval>(async (request, approvalOptions) => {
    approvals.push(request)
    return decide(request, approvalOptions)
  })
  const context = createTestContext({ api, requestApproval })
  await loginWithEmail(context, email, { connectEmail, connectOtp })
  const addresses = api.users.get(email)?.wallet?.addresses
  if (!addresses) throw new Error('no wallet')
  // Reading the device share is the first step of every signature.
  const readShare = vi.spyOn(context.storage, 'getDeviceShare')
  return { context, addresses, approvals, requestApproval, node, readShare }
}

export const run = (
  context: TestContext,
  request: Parameters<typeof handleRpc>[1],
  signal = new AbortController().signal,
) => handleRpc(context, request, { signal })

export const typedData = (address: string) => ({
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
    ],
    Mail: [
      { name: 'to', type: 'address' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: { name: 'Porthole', chainId: 1 },
  message: { to: address, contents: 'Hello' },
})

/** What the approval shows for `request`: its title, notes, then one line per field and text. */
export function shown(request: ApprovalRequest | undefined): string {
  if (!request) throw new Error('no approval was shown')
  const display = toDisplay(request)
  return [
    display.title,
    ...display.notes,
    ...display.sections.flatMap((section) =>
      section.type === 'fields'
        ? [
            ...(section.title ? [section.title] : []),
            ...section.fields.map((field) => `${field.label}: ${field.value}`),
          ]
        : [`${section.title}: ${section.text}`],
    ),
  ].join('\n')
}
