export const nowIso = (now: Date = new Date()): string => now.toISOString();
export const addSeconds = (d: Date, s: number): Date => new Date(d.getTime() + s * 1000);
export const addHours = (d: Date, h: number): Date => addSeconds(d, h * 3600);
export const addDays = (d: Date, days: number): Date => addHours(d, days * 24);
