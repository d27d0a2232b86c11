/**
 * Contracts as zod schemas (mini or classic: both are zod's core schemas), and
 * the channel parsers built from them.
 */
import type { Parsers } from './Channel.js'
import { z } from './zod.js'

type Schema = z.core.$ZodType

export type ZodContract = {
  requests: Record<string, { params: Schema; result: Schema }>
  events: Record<string, Schema>
}

/** The channel `Spec` a zod contract describes. */
export type Infer<contract extends ZodContract> = {
  requests: {
    [method in keyof contract['requests']]: {
      params: z.output<contract['requests'][method]['params']>
      result: z.output<contract['requests'][method]['result']>
    }
  }
  events: { [name in keyof contract['events']]: z.output<contract['events'][name]> }
}

const mapValues = <value, mapped>(
  record: Record<string, value>,
  map: (value: value) => mapped,
): Record<string, mapped> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]))

/** Parsers for a channel whose side serves `local` and talks to a side that serves `remote`. */
export function parsers<local extends ZodContract, remote extends ZodContract>(
  local: local,
  remote: remote,
): Parsers<Infer<local>, Infer<remote>> {
  return {
    params: mapValues(local.requests, (spec) => (value: unknown) => z.parse(spec.params, value)),
    events: mapValues(local.events, (schema) => (value: unknown) => z.parse(schema, value)),
    results: mapValues(remote.requests, (spec) => (value: unknown) => z.parse(spec.result, value)),
  } as Parsers<Infer<local>, Infer<remote>>
}
