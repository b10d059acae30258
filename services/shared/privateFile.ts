/**
 * Writing a private file (a key, a token, a device identity) whole or not at
 * all. The content goes to a temporary file next to the target (same
 * directory, so same file system; mode 0600 whatever the umask), is flushed
 * to disk (`fsync`), and only then appears under the target's name:
 *
 * - `"replace"`: `rename` over the target (atomic: readers see the old or
 *   the new file, never a part);
 * - `"create"`: `link` to the target, which fails when the target exists, so
 *   of two processes racing to create it exactly one wins and the other
 *   learns it lost (and reads the winner's file). Nothing is overwritten.
 *
 * A crash at any point leaves either no target or a complete one (plus, at
 * worst, a `<target>.<random>.tmp` file). Used by the admin token
 * (services/auth/adminToken.ts), the secrets master key
 * (layers/secrets/masterKey.ts) and the client's device identity and scoped
 * token (src/client/identity.ts, src/client/scopedToken.ts). Plain
 * `node:fs/promises`, so the Promise-based client SDK can use it too.
 */
import { randomBytes } from "node:crypto"
import { chmod, link, mkdir, open, rename, unlink } from "node:fs/promises"
import { dirname } from "node:path"

/** How {@link writePrivateFile} puts the file in place. */
export type PrivateFileMode = "replace" | "create"

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

/** Flushes the directory entry of a rename or link to disk; not possible everywhere (e.g. Windows), hence best effort. */
const syncDirectory = async (directory: string): Promise<void> => {
  try {
    const handle = await open(directory, "r")
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // best effort
  }
}

/**
 * Writes `content` to `path` with mode 0600 (creating its directory with
 * mode 0700 when missing), atomically as described in the module
 * documentation.
 *
 * @returns `true` when the file was written; `false` only in `"create"` mode
 *   when `path` already existed (it is left untouched).
 * @throws the file-system error (`EACCES`, `ENOSPC`, …) when the file cannot
 *   be written; the target is then unchanged and no temporary file is left.
 */
export const writePrivateFile = async (path: string, content: string | Uint8Array, mode: PrivateFileMode): Promise<boolean> => {
  const directory = dirname(path)
  await mkdir(directory, { recursive: true, mode: 0o700 })
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`
  const handle = await open(temporary, "wx", 0o600)
  try {
    try {
      // `open`'s mode is filtered by the umask; make sure the result is exactly 0600.
      await handle.chmod(0o600)
      await handle.writeFile(content)
      await handle.sync()
    } finally {
      await handle.close()
    }
    if (mode === "replace") {
      await rename(temporary, path)
    } else {
      try {
        await link(temporary, path)
      } catch (error) {
        if (code(error) === "EEXIST") return false
        throw error
      }
    }
    await syncDirectory(directory)
    return true
  } finally {
    // After `rename` the temporary name is gone (ENOENT); after `link` or a failure it must go.
    await unlink(temporary).catch(() => undefined)
  }
}

/** Resets a private file's mode to 0600 when group or others may read it; errors (not the owner, …) are ignored. */
export const tightenPrivateFile = async (path: string, currentMode: number): Promise<void> => {
  if ((currentMode & 0o077) !== 0) await chmod(path, 0o600).catch(() => undefined)
}
