/**
 * HTTP credentials (gateway-api.md "Authentication"; reference §2.4), shared
 * by the HTTP middleware and the `/ws` upgrade.
 */

/**
 * The token of an `Authorization: Bearer <token>` header: exactly the word
 * `Bearer`, one space and a non-empty token without spaces; else `undefined`.
 */
export const bearerToken = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const space = header.indexOf(" ")
  if (space <= 0 || header.slice(0, space) !== "Bearer") return undefined
  const token = header.slice(space + 1)
  return token.length > 0 && !token.includes(" ") ? token : undefined
}
