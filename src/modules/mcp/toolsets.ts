import { allSkills, type Skill } from "./skills/registry";

/**
 * Which tools one request is served, keyed on the tool's name and access only (so it holds whatever
 * defines the skills): the endpoint's tools (every tool, or the read tools at /mcp/readonly),
 * narrowed by the client to some toolsets and/or single tools. tools/list shows exactly these;
 * tools/call of any other is an unknown tool.
 */
export interface ToolSelection {
  readOnly: boolean;
  /** null: no narrowing by toolset */
  toolsets: ReadonlySet<string> | null;
  /** null: no narrowing by tool name */
  tools: ReadonlySet<string> | null;
  /** a name that selects nothing: the request is refused (http.ts on 2025-xx, usableSelection on 2026-07-28) */
  problem?: SelectionProblem;
}

export const EVERY_TOOL: ToolSelection = { readOnly: false, toolsets: null, tools: null };

/** Code-unit order: the same in every runtime and locale (2026-07-28 asks for a deterministic tools/list). */
export const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A tool's toolset is its name's prefix: review.list -> review, agent.review-responder -> agent. */
export const toolsetOf = (toolName: string) => toolName.split(".")[0]!;

/** Every toolset of the catalogue, sorted. */
export const allToolsets = (): string[] => [...new Set(allSkills().map((s) => toolsetOf(s.name)))].sort(byName);

export function inSelection(skill: Pick<Skill, "name" | "access">, selection: ToolSelection): boolean {
  if (selection.readOnly && skill.access !== "read") return false;
  if (!selection.toolsets && !selection.tools) return true;
  // toolsets and single tools add up: "the review toolset plus inbox.get"
  return Boolean(selection.toolsets?.has(toolsetOf(skill.name)) || selection.tools?.has(skill.name));
}

export interface SelectionProblem {
  message: string;
  details: Record<string, unknown>;
}

/** The JSON-RPC error a 2026-07-28 tools/list or tools/call gets for a bad selection: -32602 Invalid params. */
export class SelectionError extends Error {
  readonly code = -32602;
  readonly data: Record<string, unknown>;
  constructor(problem: SelectionProblem) {
    super(problem.message);
    this.data = problem.details;
  }
}

/** The selection, or the JSON-RPC error of its problem (thrown inside an SDK request handler). */
export function usableSelection(selection: ToolSelection): ToolSelection {
  if (selection.problem) throw new SelectionError(selection.problem);
  return selection;
}

export const TOOLSETS_HEADER = "x-mcp-toolsets";
export const TOOLS_HEADER = "x-mcp-tools";

/** Comma-separated names from the header and the query parameter together; null when neither names any. */
function names(url: URL, headers: Headers, header: string, param: string): string[] | null {
  const raw = [headers.get(header) ?? "", ...url.searchParams.getAll(param)].join(",");
  const list = raw
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  return list.length ? list : null;
}

/** A toolset name as written: the prefix, case-insensitive, or its plural with a final "s" (reviews = review). */
function resolveToolset(name: string, known: Set<string>): string | null {
  const lower = name.toLowerCase();
  if (known.has(lower)) return lower;
  return lower.endsWith("s") && known.has(lower.slice(0, -1)) ? lower.slice(0, -1) : null;
}

/**
 * The selection a request asks for: `X-MCP-Toolsets` / `?toolsets=` and `X-MCP-Tools` / `?tools=`
 * (comma-separated). A name that is not a toolset, or not a tool this endpoint serves, is a `problem`
 * that refuses the request: a client that narrowed to a typo would otherwise see no tools and not know why.
 */
export function readSelection(url: URL, headers: Headers, readOnly: boolean): ToolSelection {
  const problem = selectionProblem(url, headers, readOnly);
  if (problem) return { readOnly, toolsets: new Set(), tools: new Set(), problem };
  const toolsets = toolsetsOf(names(url, headers, TOOLSETS_HEADER, "toolsets"));
  return { readOnly, toolsets, tools: setOf(names(url, headers, TOOLS_HEADER, "tools")) };
}

const setOf = (list: string[] | null) => (list ? new Set(list) : null);
function toolsetsOf(list: string[] | null): Set<string> | null {
  const known = new Set(allToolsets());
  return list ? new Set(list.map((n) => resolveToolset(n, known)!)) : null;
}

function selectionProblem(url: URL, headers: Headers, readOnly: boolean): SelectionProblem | null {
  const toolsetNames = names(url, headers, TOOLSETS_HEADER, "toolsets");
  const toolNames = names(url, headers, TOOLS_HEADER, "tools");
  const known = new Set(allToolsets());
  if (toolsetNames) {
    const unknown = toolsetNames.filter((n) => resolveToolset(n, known) === null);
    const details = { unknownToolsets: unknown, toolsets: [...known] };
    if (unknown.length) return { message: `Unknown toolset: ${unknown.join(", ")}`, details };
  }
  if (toolNames) {
    const served = allSkills().filter((s) => inSelection(s, { ...EVERY_TOOL, readOnly }));
    const servedNames = new Set(served.map((s) => s.name));
    const unknown = toolNames.filter((n) => !servedNames.has(n));
    if (unknown.length) {
      const why = readOnly
        ? "not a read-only tool of this catalogue (/mcp/readonly serves only those)"
        : "not a tool of this catalogue";
      return { message: `Unknown tool: ${unknown.join(", ")} (${why})`, details: { unknownTools: unknown } };
    }
  }
  return null;
}
