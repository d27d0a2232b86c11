/**
 * The shapes of CAIP-2 network ids and CAIP-10 account ids on the wire
 * (`namespace:reference[:address]`), shared by the schemas and the loader's
 * guards. `@porthole/chains` parses them fully; these only bound them.
 */
export const caip2Pattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
export const caip10Pattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}:[-.%a-zA-Z0-9]{1,128}$/
