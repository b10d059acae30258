/**
 * The small HTML pages of the OAuth callback. Everything a page echoes (the
 * provider id, the agent, the provider's `error`/`error_description`) is
 * HTML-escaped; no token is ever part of a page. Pages load nothing (the
 * handler sends `Content-Security-Policy: default-src 'none'`).
 *
 * @module
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\"": "&quot;",
  "'": "&#39;",
  "`": "&#96;"
}

/** Escapes `text` for HTML text and attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"'`]/g, (c) => ESCAPES[c])

/** Longest echoed value, in characters (longer ones are cut, then escaped). */
const MAX_ECHO = 500

const echo = (text: string): string => escapeHtml(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text)

const page = (title: string, lines: ReadonlyArray<string>): string =>
  `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${echo(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style></head>
<body>
<h1>${echo(title)}</h1>
${lines.map((line) => `<p>${line}</p>`).join("\n")}
</body>
</html>
`

/** The success page: the provider is connected for the agent. */
export const successPage = (input: { readonly provider: string; readonly agentId: string; readonly authProfileId: string }) =>
  page("Provider connected", [
    `The <strong>${echo(input.provider)}</strong> account is connected for agent <strong>${echo(input.agentId)}</strong>.`,
    `Auth profile: <code>${echo(input.authProfileId)}</code>.`,
    "You can close this window."
  ])

/** The failure page: the provider reported an error, or the code exchange failed. */
export const failurePage = (input: {
  readonly provider: string
  readonly error: string
  readonly description?: string | undefined
}) =>
  page("Provider connection failed", [
    `Connecting <strong>${echo(input.provider)}</strong> failed: <code>${echo(input.error)}</code>.`,
    ...(input.description !== undefined && input.description.length > 0 ? [echo(input.description)] : []),
    "Start the connection again from the gateway."
  ])

/** The 400 page: invalid, expired, replayed or wrong-provider state, or missing parameters. */
export const invalidPage = (message: string) =>
  page("Invalid OAuth callback", [echo(message), "Start the connection again from the gateway."])
