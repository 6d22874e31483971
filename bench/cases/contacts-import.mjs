const ROWS = 5_000;
const RUNS = 3;

function csv(run) {
  const lines = ["email,phone,firstName,lastName,locale,timezone"];
  for (let i = 0; i < ROWS; i++) {
    const phone = `+14152${String(run * ROWS + i).padStart(6, "0")}`;
    lines.push(`import.${run}.${i}@bench.example,${phone},Row${i},Import ${run},en-US,America/Chicago`);
  }
  return lines.join("\n");
}

/** POST /v1/contacts/import/csv with a 5,000-row file (new contacts each run): seconds and rows/s. */
export default {
  name: "POST /v1/contacts/import/csv (5,000 rows)",
  async run({ url, session }) {
    const times = [];
    let last;
    for (let run = 0; run < RUNS; run++) {
      const form = new FormData();
      form.set("file", new Blob([csv(run)], { type: "text/csv" }), `bench-${run}.csv`);
      const started = performance.now();
      const res = await fetch(`${url}/v1/contacts/import/csv`, {
        method: "POST",
        headers: session.headers,
        body: form,
      });
      times.push((performance.now() - started) / 1000);
      last = await res.json();
      if (res.status !== 200 || last.imported !== ROWS)
        throw new Error(`import failed: ${res.status} ${JSON.stringify(last).slice(0, 300)}`);
    }
    const median = [...times].sort((a, b) => a - b)[Math.floor(RUNS / 2)];
    return {
      rps: null,
      p50: null,
      p99: null,
      p50At1: null,
      requests: RUNS,
      non2xx: 0,
      extra: {
        "import s (median of 3)": +median.toFixed(2),
        "rows/s": Math.round(ROWS / median),
        imported: last.imported,
      },
    };
  },
};
