/**
 * The console's pages: one line each. A page is a folder under `src/pages/`
 * whose `index.tsx` exports the page component as default; its line here gives
 * its path under /ui, its title in the navigation, the scope a device token
 * needs to see it (the admin token sees every page) and the code-split import.
 * Adding a page is that folder and one line below (docs/ui.md "Adding a page").
 */
import type { ComponentType } from "preact"
import type { OperatorScope } from "./session.ts"

/** One page of the console. */
export interface PageEntry {
  /** Path under /ui, e.g. `/approvals` (the page also gets every path below it: `/runs/<id>`). */
  readonly path: string
  readonly title: string
  /** Navigation group. */
  readonly section: "Operate" | "Admin" | "Observe"
  /** The scope a device token needs to see the page. */
  readonly scope: OperatorScope
  readonly load: () => Promise<{ default: ComponentType }>
}

/** Every page, in navigation order; the first one a principal may see is the console's start page. */
export const pages: ReadonlyArray<PageEntry> = [
  { path: "/approvals", title: "Approvals", section: "Operate", scope: "operator.approvals", load: () => import("../pages/approvals/index.tsx") },
  { path: "/runs", title: "Runs", section: "Operate", scope: "operator.read", load: () => import("../pages/runs/index.tsx") },
  { path: "/playbooks", title: "Playbooks", section: "Operate", scope: "operator.read", load: () => import("../pages/playbooks/index.tsx") },
  { path: "/pairings", title: "Pairings", section: "Operate", scope: "operator.pairing", load: () => import("../pages/pairings/index.tsx") },
  { path: "/work", title: "Work board", section: "Operate", scope: "operator.read", load: () => import("../pages/work/index.tsx") },
  { path: "/memory", title: "Memory", section: "Operate", scope: "operator.read", load: () => import("../pages/memory/index.tsx") },
  { path: "/messenger", title: "Messenger inbox", section: "Operate", scope: "operator.read", load: () => import("../pages/messenger/index.tsx") },
  { path: "/agent", title: "Agent chat", section: "Operate", scope: "operator.read", load: () => import("../pages/agent/index.tsx") },
  { path: "/nodes", title: "Nodes", section: "Operate", scope: "operator.read", load: () => import("../pages/nodes/index.tsx") },
  { path: "/policy", title: "Policy", section: "Admin", scope: "operator.admin", load: () => import("../pages/policy/index.tsx") },
  { path: "/secrets", title: "Secrets", section: "Admin", scope: "operator.admin", load: () => import("../pages/secrets/index.tsx") },
  { path: "/tokens", title: "Device tokens", section: "Admin", scope: "operator.admin", load: () => import("../pages/tokens/index.tsx") },
  { path: "/auth-profiles", title: "Auth profiles", section: "Admin", scope: "operator.admin", load: () => import("../pages/auth-profiles/index.tsx") },
  { path: "/routing", title: "Routing", section: "Admin", scope: "operator.admin", load: () => import("../pages/routing/index.tsx") },
  { path: "/watchers", title: "Watchers", section: "Admin", scope: "operator.admin", load: () => import("../pages/watchers/index.tsx") },
  { path: "/snapshots", title: "Snapshots", section: "Admin", scope: "operator.admin", load: () => import("../pages/snapshots/index.tsx") },
  { path: "/plugins", title: "Plugins", section: "Admin", scope: "operator.admin", load: () => import("../pages/plugins/index.tsx") },
  { path: "/audit", title: "Audit", section: "Admin", scope: "operator.admin", load: () => import("../pages/audit/index.tsx") },
  { path: "/canvas", title: "Canvas", section: "Observe", scope: "operator.read", load: () => import("../pages/canvas/index.tsx") },
  { path: "/status", title: "Status", section: "Observe", scope: "operator.read", load: () => import("../pages/status/index.tsx") }
]
