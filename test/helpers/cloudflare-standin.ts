// A local stand-in for Cloudflare's custom hostnames API (v4 envelope {success, errors, messages, result}):
// it checks the wire format (method, path, Bearer token, JSON body) and keeps hostnames in memory.
export interface StandInHostname {
  id: string;
  hostname: string;
  status: string;
  ssl: {
    status: string;
    method: string;
    type: string;
    validation_records: { http_url: string; http_body: string }[];
    validation_errors?: { message: string }[];
  };
  ownership_verification: { type: string; name: string; value: string };
  verification_errors?: string[];
  created_at: string;
}

export function cloudflareStandIn(o: { token: string; zoneId: string }) {
  const hostnames = new Map<string, StandInHostname>();
  const calls: { method: string; path: string; body: unknown }[] = [];
  let failNext: number | null = null;
  const envelope = (status: number, result: unknown, errors: { code: number; message: string }[] = []) =>
    Response.json({ success: errors.length === 0, errors, messages: [], result }, { status });

  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = req.method === "POST" ? await req.json() : undefined;
    calls.push({ method: req.method, path: url.pathname, body });
    if (url.origin !== "https://api.cloudflare.com") return envelope(404, null, [{ code: 7000, message: "No route" }]);
    if (req.headers.get("authorization") !== `Bearer ${o.token}`)
      return envelope(403, null, [{ code: 10000, message: "Authentication error" }]);
    if (failNext) {
      const status = failNext;
      failNext = null;
      return envelope(status, null, [{ code: 10001, message: "service unavailable" }]);
    }
    const base = `/client/v4/zones/${o.zoneId}/custom_hostnames`;
    if (req.method === "POST" && url.pathname === base) {
      if (req.headers.get("content-type") !== "application/json")
        return envelope(400, null, [{ code: 1004, message: "bad content type" }]);
      const b = body as { hostname?: string; ssl?: { method?: string; type?: string } };
      if (!b.hostname || b.ssl?.type !== "dv" || !["http", "txt", "email"].includes(b.ssl?.method ?? ""))
        return envelope(400, null, [{ code: 1413, message: "Invalid custom hostname" }]);
      if ([...hostnames.values()].some((h) => h.hostname === b.hostname))
        return envelope(409, null, [{ code: 1406, message: "Duplicate custom hostname found." }]);
      const id = crypto.randomUUID();
      const h: StandInHostname = {
        id,
        hostname: b.hostname,
        status: "pending",
        ssl: {
          status: "pending_validation",
          method: b.ssl.method!,
          type: "dv",
          validation_records: [
            { http_url: `http://${b.hostname}/.well-known/acme-challenge/${id}`, http_body: `body-${id}` },
          ],
        },
        ownership_verification: { type: "txt", name: `_cf-custom-hostname.${b.hostname}`, value: `verify-${id}` },
        created_at: new Date().toISOString(),
      };
      hostnames.set(id, h);
      return envelope(201, h);
    }
    const m = url.pathname.match(new RegExp(`^${base}/([^/]+)$`));
    if (m) {
      const h = hostnames.get(m[1]!);
      if (!h) return envelope(404, null, [{ code: 1436, message: "The custom hostname was not found." }]);
      if (req.method === "GET") return envelope(200, h);
      if (req.method === "DELETE") {
        hostnames.delete(h.id);
        return envelope(200, { id: h.id });
      }
    }
    return envelope(405, null, [{ code: 10405, message: "Method not allowed" }]);
  };

  return {
    fetch,
    calls,
    hostnames,
    /** the customer's DNS is in place: Cloudflare verified ownership and issued the certificate */
    activate(hostname: string) {
      const h = [...hostnames.values()].find((x) => x.hostname === hostname)!;
      h.status = "active";
      h.ssl = { ...h.ssl, status: "active", validation_records: [] };
    },
    failNextWith(status: number) {
      failNext = status;
    },
  };
}
