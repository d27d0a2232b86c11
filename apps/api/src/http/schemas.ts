/**
 * The API's own schemas. Every wire shape the widget or the secure frame also
 * reads (project id, wallet id, features, wallet entries, allowed origins,
 * error bodies) comes from `@porthole/protocol/Api`, so the two sides cannot
 * drift apart; only what the API alone parses or stores is defined here.
 */
import * as Api from '@porthole/protocol/Api'
import { z } from 'zod'

/** A CAIP-2 chain id (`namespace:reference`), e.g. `eip155:1`. */
export const Caip2 = z
  .string()
  .regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'must be a CAIP-2 chain id such as eip155:1')
export type Caip2 = z.infer<typeof Caip2>

/** Printable ASCII without spaces, bounded: client ids and SDK labels. */
const token = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')

/** The widget's anonymous client id, appended to every call. */
export const ClientId = token(128)
/** SDK type (`st`) and SDK version (`sv`) labels. */
export const SdkLabel = token(64)

/** Features of a new project: embedded login and paid services off, analytics on. */
export const defaultFeatures: Api.Features = {
  email: false,
  socials: [],
  onramp: false,
  swaps: false,
  history: false,
  analytics: true,
}

/** A project as read from the database. */
export const Project = z.object({
  id: Api.ProjectId,
  name: z.string(),
  /** The stored patterns that may be used: each one valid and canonical (`readStoredPatterns`). */
  allowedOrigins: z.array(z.string()),
  /**
   * Stored entries that could not have been saved (written by raw SQL, say),
   * never served. A project whose list holds only these allows no host at all.
   */
  refusedOrigins: z.array(z.string()),
  features: Api.Features,
  /** The networks the widget offers, each known; the first is the default. */
  networks: Api.ProjectConfig.shape.networks,
  /** Stored networks that are not known (written by raw SQL, say), never served. */
  refusedNetworks: z.array(z.string()),
  /**
   * Whether the RPC proxy forwards heavy parameters for this project: state
   * and block overrides, eth_getLogs over more than 1,000 blocks (SECURITY.md 24).
   */
  heavyRpc: z.boolean(),
  createdAt: z.date(),
})
export type Project = z.infer<typeof Project>
