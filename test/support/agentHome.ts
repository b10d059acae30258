/**
 * A `$SVC_HOME` for agent runtime tests: a policy bundle (`policy.yml`) and,
 * per agent, the `builtin/scripted` provider's `agents/<id>/script.yml`
 * (docs/agent.md "The scripted provider").
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A fresh home with `policy` (YAML lines) and each agent's script (YAML lines); answers its path. */
export const agentHome = (policy: ReadonlyArray<string>, scripts: Readonly<Record<string, ReadonlyArray<string>>>): string => {
  const home = mkdtempSync(join(tmpdir(), "svc-agent-home-"))
  writeFileSync(join(home, "policy.yml"), [...policy, ""].join("\n"))
  for (const [agentId, lines] of Object.entries(scripts)) {
    mkdirSync(join(home, "agents", agentId), { recursive: true })
    writeFileSync(join(home, "agents", agentId, "script.yml"), [...lines, ""].join("\n"))
  }
  return home
}
