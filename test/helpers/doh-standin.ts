// A local stand-in for a DNS-over-HTTPS resolver's JSON API (Cloudflare 1.1.1.1 / Google dns.google:
// GET ?name=&type=TXT with `accept: application/dns-json`; `Status` is the RCODE: 0 NOERROR, 2 SERVFAIL,
// 3 NXDOMAIN; TXT answers are type 16 with the text quoted in `data`). It checks the request's shape and
// answers from records the test sets.
export function dohStandIn() {
  const txt = new Map<string, string[]>();
  const lookups: string[] = [];
  let failNext: "servfail" | number | null = null;

  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (req.method !== "GET" || req.headers.get("accept") !== "application/dns-json")
      return new Response("Bad Request", { status: 400 });
    const name = (url.searchParams.get("name") ?? "").toLowerCase().replace(/\.$/, "");
    if (url.searchParams.get("type") !== "TXT" || !name) return new Response("Bad Request", { status: 400 });
    lookups.push(name);
    const question = [{ name, type: 16 }];
    if (failNext !== null) {
      const f = failNext;
      failNext = null;
      if (f === "servfail") return Response.json({ Status: 2, TC: false, Question: question });
      return new Response("unavailable", { status: f });
    }
    const records = txt.get(name);
    if (!records) return Response.json({ Status: 3, TC: false, Question: question });
    return Response.json({
      Status: 0,
      TC: false,
      Question: question,
      Answer: records.map((r) => ({ name, type: 16, TTL: 300, data: JSON.stringify(r) })),
    });
  };

  return {
    fetch,
    lookups,
    /** the customer created (or changed) a TXT record */
    setTxt(name: string, ...values: string[]) {
      txt.set(name.toLowerCase(), values);
    },
    removeTxt(name: string) {
      txt.delete(name.toLowerCase());
    },
    failNextWith(f: "servfail" | number) {
      failNext = f;
    },
  };
}
