import { beforeAll, expect, it } from "vitest";
import { createWorld, type World } from "../helpers/seed";
import { connect, mintTestKey, structured } from "./helpers";

let w: World;
beforeAll(async () => {
  w = await createWorld();
});

it("initializes and lists tools", async () => {
  const key = mintTestKey(w.tenantA.id, ["read:locations"]);
  const { client } = await connect({ token: key.token });
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toEqual(["location.finder", "location.list"]);
  const res = await client.callTool({ name: "location.list", arguments: {} });
  expect(structured(res)).toMatchObject({ data: [], total: 0 });
});
