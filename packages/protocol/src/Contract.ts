/** Contracts as zod schemas, and the channel parsers built from them. */
import type { z } from 'zod'
import type { Parsers } from './Channel.js'

export type ZodContract = {
  requests: Record<string, { params: z.ZodType; result: z.ZodType }>
  events: Record<string, z.ZodType>
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
    params: mapValues(local.requests, (spec) => (value: unknown) => spec.params.parse(value)),
    events: mapValues(local.events, (schema) => (value: unknown) => schema.parse(value)),
    results: mapValues(remote.requests, (spec) => (value: unknown) => spec.result.parse(value)),
  } as Parsers<Infer<local>, Infer<remote>>
}
