/**
 * Plugin directories for tests (docs/plugins.md "Layout"): the example
 * plugin copied from `examples/plugins/echo`, or a plugin written from its
 * files, under `<home>/plugins/<id>/`, locked with the CLI's own writer
 * unless asked not to.
 */
import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { lockPlugin } from "../../services/plugins/lock.ts"

/** The repository's example plugin. */
export const ECHO_EXAMPLE = join(import.meta.dirname, "..", "..", "examples", "plugins", "echo")

/** `<home>/plugins`, created without group or world write access. */
export const pluginsRoot = (home: string): string => {
  const root = join(home, "plugins")
  mkdirSync(root, { recursive: true, mode: 0o755 })
  chmodSync(home, 0o755)
  chmodSync(root, 0o755)
  return root
}

/** Records `<home>/plugins/<id>/plugin.lock.json` as `svc-gateway plugins lock <id>` does. */
export const lock = (home: string, id: string): Promise<unknown> =>
  Effect.runPromise(lockPlugin(pluginsRoot(home), id, "test"))

/** Copies the example plugin, with its committed lock file, into `home`. */
export const installEcho = (home: string): string => {
  const dir = join(pluginsRoot(home), "echo")
  cpSync(ECHO_EXAMPLE, dir, { recursive: true })
  return dir
}

/** Writes plugin `id` from `files` (name → text) and locks it unless `locked` is false; answers its directory. */
export const writePlugin = async (
  home: string,
  id: string,
  files: Readonly<Record<string, string>>,
  options: { readonly locked?: boolean } = {}
): Promise<string> => {
  const dir = join(pluginsRoot(home), id)
  mkdirSync(dir, { recursive: true, mode: 0o755 })
  chmodSync(dir, 0o755)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  if (options.locked !== false) await lock(home, id)
  return dir
}

/** A minimal `plugin.yml` for plugin `id`, with `extra` YAML lines appended. */
export const manifest = (id: string, extra: ReadonlyArray<string> = []): string =>
  [`id: ${id}`, `name: ${id}`, "version: 1.0.0", "config_schema: {type: object}", ...extra, ""].join("\n")
