import { readdirSync, readFileSync } from "node:fs";

/** The workerd processes Miniflare started for this bench (descendants of this process). */
export function workerdPids() {
  const parentOf = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return 0;
    }
  };
  const mine = (pid) => {
    for (let p = parentOf(pid); p > 1; p = parentOf(p)) if (p === process.pid) return true;
    return false;
  };
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("workerd") && mine(pid);
      } catch {
        return false;
      }
    });
}

/** utime + stime of a process, in clock ticks (100 per second on Linux). */
export function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
