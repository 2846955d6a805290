// The agent and the client talk over two in-memory byte pipes carrying newline-delimited JSON,
// exactly what a stdio transport carries; each pipe is tapped so that the protocol log shows every
// line as it went over the wire (after serialization, so what you see is what the peer parsed).

import { ndJsonStream } from '@agentclientprotocol/sdk';

export const CLIENT_TO_AGENT = 'client→agent';
export const AGENT_TO_CLIENT = 'agent→client';

function tappedPipe(direction, onLine) {
  const decoder = new TextDecoder();
  let pending = '';
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        // Logged before it is passed on, so a request always appears before its response.
        if (line.trim()) onLine(direction, line);
      }
      controller.enqueue(chunk);
    },
  });
}

/** `{client, agent}`: the two ends, each an SDK `Stream`. */
export function loggedConnectionPair(onLine) {
  const toAgent = tappedPipe(CLIENT_TO_AGENT, onLine);
  const toClient = tappedPipe(AGENT_TO_CLIENT, onLine);
  return {
    client: ndJsonStream(toAgent.writable, toClient.readable),
    agent: ndJsonStream(toClient.writable, toAgent.readable),
  };
}
