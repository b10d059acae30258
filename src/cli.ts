/**
 * Entry point of the bundled CLI (scripts/bundle.mjs → dist/cli/main.mjs).
 *
 * - `--help`, `-h`, `--version` and `<command> --help` print the text the CLI
 *   itself produced when the bundle was built (dist/cli/help.json, written by
 *   scripts/bundle.mjs from effect/cli's own output; the help does not depend
 *   on the environment), so they answer without loading Effect.
 *   `SVC_CLI_NO_HELP_CACHE=1` (used to build that file) always runs the CLI.
 * - A closed stdout (`svc-gateway serve | head -1`) is not a crash (src/stdio.ts).
 * - Anything else switches on Effect's Schema JIT compiler before any other
 *   module is evaluated (bundled chunks would otherwise run first), then runs
 *   the CLI (src/main.ts).
 */
import { readFileSync } from "node:fs"
import { tolerateClosedOutput } from "./stdio.ts"

tolerateClosedOutput()

const cachedAnswer = (args: ReadonlyArray<string>): string | undefined => {
  if (process.env.SVC_CLI_NO_HELP_CACHE === "1") return undefined
  const help = (a: string | undefined) => a === "--help" || a === "-h"
  const key = args.length === 1 && help(args[0])
    ? "help"
    : args.length === 1 && args[0] === "--version"
    ? "version"
    : args.length === 2 && help(args[1])
    ? `${args[0]} --help`
    : undefined
  if (key === undefined) return undefined
  try {
    const cache = JSON.parse(readFileSync(new URL("./help.json", import.meta.url), "utf8")) as Record<string, string>
    return cache[key]
  } catch {
    return undefined
  }
}

const cached = cachedAnswer(process.argv.slice(2))
if (cached !== undefined) {
  process.stdout.write(cached)
} else {
  await import("effect/schema/SchemaJITCompiler/enable")
  await import("./main.ts")
}
