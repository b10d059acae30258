/**
 * Loading the playbook directory (issue 13 §1; docs/playbooks.md "Files"):
 * every `<dir>/<name>/playbook.yml` (names sorted; names starting with `.`
 * skipped; a subdirectory without the file is not a playbook) is read,
 * parsed and compiled (`parse.ts`) into one {@link PlaybookState}. A file
 * that fails is an error entry, never skipped silently; so is a second file
 * with an id already loaded from an earlier directory name.
 *
 * A file whose text did not change since `previous` keeps its outcome and
 * its `loaded_at`.
 *
 * A `playbook.yml`, or its directory, that is a symbolic link resolving
 * outside the playbook directory is refused (an error entry; issue 20 §5):
 * the directory is the operator's, the rest of the file system is not. Links
 * inside it are followed, and the file is read at its resolved path.
 *
 * @module
 */
import { Clock, Effect, FileSystem, Option, Result } from "effect"
import { isAbsolute, join, relative, sep } from "node:path"
import { isoTime } from "../shared/time.ts"
import { MAX_PLAYBOOK_BYTES, type ParsedPlaybook, type ParseFailure, parsePlaybook } from "./parse.ts"
import type { PlaybookLoadError } from "./schema.ts"

/** The file name of a playbook inside its directory. */
export const PLAYBOOK_FILE = "playbook.yml"

/** A playbook that loaded. */
export interface LoadedPlaybook extends ParsedPlaybook {
  readonly file_path: string
  /** ISO-8601 UTC: when this text of the file was first loaded. */
  readonly loaded_at: string
}

/** What one file gave, keyed by its text (reused while the text is unchanged). */
interface FileOutcome {
  readonly text: string
  readonly result: Result.Result<ParsedPlaybook, ParseFailure>
  readonly loaded_at: string
}

/** The loaded set: playbooks by id, the files that failed (sorted by path), and each file's outcome. */
export interface PlaybookState {
  readonly playbooks: ReadonlyMap<string, LoadedPlaybook>
  readonly errors: ReadonlyArray<PlaybookLoadError>
  readonly files: ReadonlyMap<string, FileOutcome>
}

/** Nothing loaded. */
export const EMPTY_STATE: PlaybookState = { playbooks: new Map(), errors: [], files: new Map() }

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message).split("\n")[0]! : String(error)

/** The `playbook.yml` paths under `dir`, sorted by directory name; none when `dir` cannot be read. */
export const candidateFiles = Effect.fnUntraced(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))
  const files: Array<string> = []
  for (const name of [...names].sort()) {
    if (name.startsWith(".")) continue
    const path = join(dir, name, PLAYBOOK_FILE)
    if (yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false))) files.push(path)
  }
  return files
})

/**
 * What changes when a playbook file changes: each candidate's path, mtime
 * and size (the polling fallback compares it).
 */
export const directorySignature = Effect.fnUntraced(function*(dir: string) {
  const fs = yield* FileSystem.FileSystem
  const parts: Array<string> = []
  for (const path of yield* candidateFiles(dir)) {
    const info = yield* fs.stat(path).pipe(Effect.option)
    parts.push(Option.match(info, {
      onNone: () => `${path}:gone`,
      onSome: (i) => `${path}:${Option.getOrElse(Option.map(i.mtime, (d) => d.getTime()), () => 0)}:${i.size}`
    }))
  }
  return parts.join("\n")
})

/** Reads one file's text, or why it cannot be read. */
const readText = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const info = yield* fs.stat(path).pipe(Effect.result)
  if (Result.isFailure(info)) return Result.fail(`cannot read the file (${describe(info.failure)})`)
  if (info.success.type !== "File") return Result.fail("not a regular file")
  if (Number(info.success.size) > MAX_PLAYBOOK_BYTES) return Result.fail(`larger than ${MAX_PLAYBOOK_BYTES} bytes`)
  const text = yield* fs.readFileString(path).pipe(Effect.result)
  return Result.isFailure(text) ? Result.fail(`cannot read the file (${describe(text.failure)})`) : Result.succeed(text.success)
})

/** True when `path` is `dir` or inside it (both resolved). */
const isInside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path)
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

/**
 * The resolved path of `file` when it stays inside `realDir` (the resolved
 * playbook directory), or why it is refused.
 */
const resolveInside = Effect.fnUntraced(function*(realDir: string, file: string) {
  const fs = yield* FileSystem.FileSystem
  const real = yield* fs.realPath(file).pipe(Effect.result)
  if (Result.isFailure(real)) return Result.fail(`cannot read the file (${describe(real.failure)})`)
  return isInside(realDir, real.success)
    ? Result.succeed(real.success)
    : Result.fail("refused: a symbolic link that resolves outside the playbook directory (only links inside it are followed)")
})

/** Loads every playbook under `dir` (see the module documentation). */
export const loadDirectory = Effect.fnUntraced(function*(dir: string, previous: PlaybookState) {
  const fs = yield* FileSystem.FileSystem
  const now = isoTime(yield* Clock.currentTimeMillis)
  const files = new Map<string, FileOutcome>()
  const playbooks = new Map<string, LoadedPlaybook>()
  const errors: Array<PlaybookLoadError> = []
  const realDir = yield* fs.realPath(dir).pipe(Effect.orElseSucceed(() => dir))
  for (const file_path of yield* candidateFiles(dir)) {
    const resolved = yield* resolveInside(realDir, file_path)
    if (Result.isFailure(resolved)) {
      errors.push({ file_path, message: resolved.failure })
      continue
    }
    const text = yield* readText(resolved.success)
    if (Result.isFailure(text)) {
      errors.push({ file_path, message: text.failure })
      continue
    }
    const before = previous.files.get(file_path)
    const outcome: FileOutcome = before !== undefined && before.text === text.success
      ? before
      : { text: text.success, result: parsePlaybook(text.success), loaded_at: now }
    files.set(file_path, outcome)
    if (Result.isFailure(outcome.result)) {
      const { line, message } = outcome.result.failure
      errors.push({ file_path, message, ...(line === undefined ? {} : { line }) })
      continue
    }
    const parsed = outcome.result.success
    const loaded = playbooks.get(parsed.manifest.id)
    if (loaded !== undefined) {
      errors.push({
        file_path,
        message: `id: a playbook with this id is already loaded from ${loaded.file_path}`,
        ...(parsed.id_line === undefined ? {} : { line: parsed.id_line })
      })
      continue
    }
    playbooks.set(parsed.manifest.id, { ...parsed, file_path, loaded_at: outcome.loaded_at })
  }
  errors.sort((a, b) => a.file_path < b.file_path ? -1 : a.file_path > b.file_path ? 1 : 0)
  return { playbooks, errors, files } satisfies PlaybookState as PlaybookState
})
