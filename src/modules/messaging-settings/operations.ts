import { errors, stdErrors } from "../../lib/openapi";
import { defineOperation, type Operation } from "../../lib/operation";
import { TestSendBody, TestSendResultSchema } from "./schemas";
import { sendTestMessage, TEST_SEND_LIMIT } from "./test-send";

// The messaging settings operations declared once (src/lib/operation.ts); REST only: a tool that sends a
// message to any address is not offered to assistants.

export const testMessagingSettingsOperation = defineOperation({
  name: "messaging.test-send",
  operationId: "testMessagingSettings",
  method: "post",
  path: "/v1/settings/messaging/test",
  tags: ["Messaging settings"],
  summary: "Send a test message on a channel to an address you give (manager)",
  description:
    "Sends a fixed test message through the channel's provider as a review request would go (the tenant's own " +
    "settings, else the platform's, else the dev mailbox), to the given address. No contact or solicitation is " +
    "created. The answer says which provider took it, or what it refused with (accepted false, error): a provider's " +
    `refusal is the test's result, not an error of this call. At most ${TEST_SEND_LIMIT} per hour per business ` +
    "(429 RATE_LIMITED with Retry-After). Audited (the address masked).",
  request: { body: TestSendBody },
  output: TestSendResultSchema,
  errors: { ...stdErrors, 429: errors[429] },
  // settings are closed to API keys (src/modules/identity/scopes.ts)
  scopes: [],
  minRole: "manager",
  access: "write",
  openWorld: true,
  handler: (ctx, input) => sendTestMessage(ctx, input),
});

/** This module's operations, collected by the composition root (src/wiring.ts OPERATIONS). */
export const operations: Operation[] = [testMessagingSettingsOperation];
