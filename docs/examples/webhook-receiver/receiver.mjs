// A storegraph webhook receiver: verifies each delivery's signature with the Standard Webhooks
// library, takes each delivery once (by its webhook-id), and prints the changes it carries.
//
//   WEBHOOK_SECRET=whsec_… PORT=3000 node docs/examples/webhook-receiver/receiver.mjs
//
// It answers 204 to a delivery it took (or had taken), 400 to one whose signature does not verify
// (storegraph then retries it: a receiver with the wrong secret loses nothing while it is fixed).
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("WEBHOOK_SECRET: the secret POST /webhooks answered (whsec_…)");
const webhook = new Webhook(secret);
const port = Number(process.env.PORT ?? 3000);

/** The deliveries taken: a retried one (the same webhook-id) is answered, not handled again. */
const taken = new Set();

const server = createServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk) => {
    body += chunk;
  });
  request.on("end", () => {
    let delivery;
    try {
      // Checks webhook-signature against webhook-id, webhook-timestamp (within 5 minutes) and the body.
      delivery = webhook.verify(body, request.headers);
    } catch (e) {
      console.error(`refused: ${e.message}`);
      response.writeHead(400).end();
      return;
    }
    const id = request.headers["webhook-id"];
    if (!taken.has(id)) {
      taken.add(id);
      handle(id, delivery);
    }
    response.writeHead(204).end();
  });
});

function handle(id, { type, data }) {
  if (type !== "changes.published") {
    console.log(`${id} ${type}`);
    return;
  }
  // data.cursor is the last change's: GET /changes?cursor=<it> goes on from there.
  console.log(`${id} ${data.count} changes of snapshot ${data.snapshot}, up to cursor ${data.cursor}`);
  for (const change of data.changes) console.log(`  ${change.kind} ${change.domain ?? change.app?.id ?? ""}`);
}

server.listen(port, () => console.log(`listening on http://localhost:${port}/`));
