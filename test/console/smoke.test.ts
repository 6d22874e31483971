import { beforeAll, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { ConsoleBrowser, textOf } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

it("signs in and lands on the home page", async () => {
  const b = new ConsoleBrowser();
  const first = await b.get("/");
  expect(first.status).toBe(200);
  expect(textOf(first.text)).toContain("Sign in to");
  const signed = await b.signIn(w.users.manager.email);
  expect(signed.status).toBe(303);
  const home = await b.follow(signed);
  expect(home.status, home.text.slice(0, 500)).toBe(200);
  expect(textOf(home.text)).toContain(w.tenantA.name);
});
