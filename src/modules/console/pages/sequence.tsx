/** @jsxImportSource hono/jsx */
import type { z } from "@hono/zod-openapi";
import { callOperation } from "../../../lib/operation-route";
import { canManage } from "../../../middleware/tenant";
import { getCampaignOperation } from "../../campaigns/operations";
import type { CampaignDto } from "../../campaigns/schemas";
import { deleteCampaignSequenceOperation, updateCampaignSequenceOperation } from "../../campaigns/sequences.operations";
import type { SequenceSchema } from "../../campaigns/sequences.schemas";
import type { TemplateDto } from "../../templates/schemas";
import { act, asRest, type CC, formOf, redirectTo } from "../kit";
import { Csrf } from "../layout";
import { campaignHref, templateOption, usableByChannel } from "./campaigns";
import { CHANNEL_LABEL } from "./requests";

/*
 * A campaign's drip sequence, on the campaign's page (docs/console.md, "Review requests"): GET
 * /v1/campaigns/{id}/sequence shown as its steps; a manager replaces it (PUT, canManage: the steps given are the
 * whole new set) or deletes it (DELETE). Step 1 is the campaign's own send; each later step goes that many days
 * after it (docs/links.md, "Drip sequences") unless the customer has reviewed, opted out or the campaign ended.
 */

type Sequence = z.infer<typeof SequenceSchema>;

/** Empty rows offered after the existing steps (a longer sequence is saved, then offered again). */
const BLANK_ROWS = 2;

export function SequenceSection(props: {
  c: CC;
  campaign: CampaignDto;
  sequence: Sequence | null;
  templates: TemplateDto[];
  csrf: string;
  manager: boolean;
}) {
  const { c, campaign, sequence } = props;
  const base = campaignHref(c, campaign.id, "/sequence");
  const steps = sequence?.steps ?? [];
  const rows = [...steps.map((s) => ({ ...s, templateId: s.templateId ?? "" })), ...Array(BLANK_ROWS).fill(null)];
  return (
    <section class="card" aria-labelledby="sequence">
      <h2 id="sequence">Sequence (follow-up messages)</h2>
      {steps.length === 0 ? (
        <p class="muted">
          No sequence: each customer gets one message.{" "}
          {props.manager && "Add reminders below, for customers who have not reviewed after some days."}
        </p>
      ) : (
        <table class="rows">
          <caption>{sequence?.name}</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">When</th>
              <th scope="col">Channel</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s, i) => (
              <tr>
                <th scope="row" data-label="Step">
                  {i + 1}
                </th>
                <td data-label="When">
                  {i === 0 ? "the campaign's send" : `${s.delayDays} day${s.delayDays === 1 ? "" : "s"} after it`}
                </td>
                <td data-label="Channel">{CHANNEL_LABEL[s.channel]}</td>
                <td data-label="Message">{s.template ? templateOption(s.template) : "the campaign's template"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.manager && (
        <details open={steps.length === 0}>
          <summary>{steps.length ? "Change the sequence" : "Add follow-up messages"}</summary>
          <form method="post" action={base}>
            <Csrf token={props.csrf} />
            <p class="muted small">
              Step 1 is the campaign's own send (0 days). A later step goes its number of days after step 1, unless the
              customer has reviewed, opted out or the campaign has ended. Leave a row's channel empty to drop it.
            </p>
            {rows.map((r, i) => (
              <fieldset>
                <legend>Step {i + 1}</legend>
                <input type="hidden" name="stepIndex" value={r ? String(r.stepIndex) : ""} />
                <label for={`step-${i}-channel`}>Channel</label>
                <select id={`step-${i}-channel`} name="stepChannel">
                  <option value="">No step</option>
                  {campaign.channels.map((ch) => (
                    <option value={ch} selected={r?.channel === ch}>
                      {CHANNEL_LABEL[ch]}
                    </option>
                  ))}
                </select>
                <label for={`step-${i}-delay`}>Days after step 1</label>
                <input
                  id={`step-${i}-delay`}
                  name="stepDelay"
                  type="number"
                  min={0}
                  max={365}
                  value={r ? String(r.delayDays) : i === 0 ? "0" : ""}
                />
                <label for={`step-${i}-template`}>Message</label>
                <select id={`step-${i}-template`} name="stepTemplate">
                  <option value="">The campaign's template for the channel</option>
                  {campaign.channels.flatMap((ch) =>
                    usableByChannel(props.templates, ch).map((t) => (
                      <option value={t.id} selected={r?.templateId === t.id}>
                        {CHANNEL_LABEL[ch]}: {templateOption(t)}
                      </option>
                    )),
                  )}
                </select>
              </fieldset>
            ))}
            <div class="actions">
              <button type="submit">Save the sequence</button>
            </div>
          </form>
        </details>
      )}
      {props.manager && sequence && (
        <form method="post" action={`${base}/delete`}>
          <Csrf token={props.csrf} />
          <div class="actions">
            <button type="submit" class="danger">
              Delete the sequence
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/**
 * The rows as PUT's steps: a row with a channel is a step. An existing step keeps its stepIndex (enrolled customers
 * are on a step by its index); a new row takes the next free index, in the order shown.
 */
function stepsOf(form: { all(name: string): string[] }) {
  const [indexes, channels, delays, templates] = ["stepIndex", "stepChannel", "stepDelay", "stepTemplate"].map((f) =>
    form.all(f),
  ) as [string[], string[], string[], string[]];
  let next = Math.max(-1, ...indexes.filter((x) => x !== "").map(Number)) + 1;
  return channels.flatMap((channel, i) =>
    channel
      ? [
          {
            stepIndex: indexes[i] ? Number(indexes[i]) : next++,
            channel,
            delayDays: delays[i]?.trim() ? Number(delays[i]) : 0,
            templateId: templates[i] || null,
          },
        ]
      : [],
  );
}

const campaignId = (c: CC) => c.req.param("campaignId") ?? "";

/** REST: PUT /v1/campaigns/{id}/sequence (canManage). */
export async function sequenceSubmit(c: CC): Promise<Response> {
  const back = campaignHref(c, campaignId(c));
  return act(c, `${back}#sequence`, async () => {
    await asRest(c, canManage);
    // another tenant's campaign is the 404 page before any word about the form
    const campaign = await callOperation<CampaignDto>(c, getCampaignOperation, { params: { id: campaignId(c) } });
    const steps = stepsOf(await formOf(c));
    const saved = await callOperation<Sequence>(c, updateCampaignSequenceOperation, {
      params: { id: campaign.id },
      body: { steps },
    });
    return redirectTo(c, `${back}#sequence`, {
      kind: "notice",
      text: `The sequence is saved: ${saved.steps.length} step${saved.steps.length === 1 ? "" : "s"}.`,
    });
  });
}

/** REST: DELETE /v1/campaigns/{id}/sequence (canManage). */
export async function deleteSequenceSubmit(c: CC): Promise<Response> {
  const back = campaignHref(c, campaignId(c));
  return act(c, back, async () => {
    await callOperation(c, deleteCampaignSequenceOperation, { params: { id: campaignId(c) } });
    return redirectTo(c, back, { kind: "notice", text: "The sequence is deleted: each customer gets one message." });
  });
}
