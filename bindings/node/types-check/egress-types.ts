// egressFetch() is assignable to the fetch option of each official SDK (checked by tsc).
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { egressFetch, endpointOf, type StreamError } from 'toolerr/egress';

const onStreamError = (e: StreamError): void => { console.log(e.endpoint.api, e.envelope.code, e.event); };
new OpenAI({ apiKey: 'k', fetch: egressFetch({ onStreamError }) });
new Anthropic({ apiKey: 'k', fetch: egressFetch({ fetch: globalThis.fetch }) });
new GoogleGenAI({ apiKey: 'k', httpOptions: { fetch: egressFetch({ dropUpstreamMessage: true }) } });
const ep = endpointOf('POST', '/v1/messages');
if (ep) console.log(ep.format satisfies string);
