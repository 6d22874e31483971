import { DurableObject } from "cloudflare:workers";

export interface McpSessionState {
  sessionId: string;
  tenantId: string;
  principal: Record<string, unknown>;
  scopes: string[];
  createdAt: number;
  lastSeenAt: number;
}

/**
 * One instance per tenant: owns that tenant's MCP sessions (the [mcp] issue puts the transport in
 * front of it). Sessions idle longer than the TTL are gone, so the client re-initializes.
 */
export class McpSessions extends DurableObject {
  static readonly IDLE_TTL_MS = 30 * 60 * 1000;

  async open(state: Omit<McpSessionState, "createdAt" | "lastSeenAt">, maxSessions: number): Promise<boolean> {
    const sessions = await this.live();
    if (sessions.length >= maxSessions) return false;
    const now = Date.now();
    await this.ctx.storage.put(`s:${state.sessionId}`, { ...state, createdAt: now, lastSeenAt: now });
    return true;
  }

  async touch(sessionId: string): Promise<McpSessionState | null> {
    const s = await this.ctx.storage.get<McpSessionState>(`s:${sessionId}`);
    if (!s || Date.now() - s.lastSeenAt > McpSessions.IDLE_TTL_MS) return null;
    s.lastSeenAt = Date.now();
    await this.ctx.storage.put(`s:${sessionId}`, s);
    return s;
  }

  async close(sessionId: string): Promise<boolean> {
    return this.ctx.storage.delete(`s:${sessionId}`);
  }

  private async live(): Promise<McpSessionState[]> {
    const all = await this.ctx.storage.list<McpSessionState>({ prefix: "s:" });
    const now = Date.now();
    const expired = [...all].filter(([, s]) => now - s.lastSeenAt > McpSessions.IDLE_TTL_MS).map(([k]) => k);
    if (expired.length) await this.ctx.storage.delete(expired);
    return [...all.values()].filter((s) => now - s.lastSeenAt <= McpSessions.IDLE_TTL_MS);
  }
}
