import { z } from 'zod'

/** A project id: letters, digits, `-` and `_`, at most 64 characters. */
export const ProjectId = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
    'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit',
  )
export type ProjectId = z.infer<typeof ProjectId>

/** A CAIP-2 chain id (`namespace:reference`), e.g. `eip155:1`. */
export const Caip2 = z
  .string()
  .regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'must be a CAIP-2 chain id such as eip155:1')
export type Caip2 = z.infer<typeof Caip2>

/** A wallet id or image id of the registry: 64 lowercase hex digits. */
export const WalletId = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits')
export type WalletId = z.infer<typeof WalletId>

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

/** Social logins (SPEC 5) plus Farcaster, which SPEC 9 lists among the default socials. */
export const SocialProvider = z.enum([
  'google',
  'github',
  'apple',
  'facebook',
  'x',
  'discord',
  'farcaster',
])

/** A project's features, as `GET /appkit/v1/config` serves them. */
export const Features = z.strictObject({
  email: z.boolean(),
  socials: z.array(SocialProvider).max(7),
  onramp: z.boolean(),
  swaps: z.boolean(),
  history: z.boolean(),
  analytics: z.boolean(),
})
export type Features = z.infer<typeof Features>

/** Features of a new project: embedded login and paid services off, analytics on. */
export const defaultFeatures: Features = {
  email: false,
  socials: [],
  onramp: false,
  swaps: false,
  history: false,
  analytics: true,
}

/** A project as stored. */
export const Project = z.object({
  id: ProjectId,
  name: z.string(),
  allowedOrigins: z.array(z.string()),
  features: Features,
  createdAt: z.date(),
})
export type Project = z.infer<typeof Project>
