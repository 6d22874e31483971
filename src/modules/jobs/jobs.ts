import { registerQueueConsumer } from "../../jobs/queue";
import { consumeJobs } from "./runner";

registerQueueConsumer("jobs", (batch, env) => consumeJobs(batch, env));
