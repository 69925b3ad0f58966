// The runtime's declarations in use: an Executor over a custom async Store, its CallResult serialized.
import * as toolerr from 'toolerr';

const store: toolerr.Store = {
  async load(_key: string) { return null; },
  async compareAndSwap(_key: string, _old: Uint8Array | null, _next: Uint8Array) { return { swapped: true, current: null }; },
};
const x = new toolerr.Executor({ store, retry: { max_attempts: 2 }, budget: new toolerr.Budget({ steps: 5 }),
  loopGuard: new toolerr.LoopGuard(3), onDecision: (d: toolerr.DecisionRecord) => void d.kind, console: true });
x.addEventListener('decision', (e) => void (e as CustomEvent<toolerr.DecisionRecord>).detail.level);
export async function run(): Promise<toolerr.AnthropicMessage[]> {
  const r: toolerr.CallResult<number> = await x.call('add', async ({ signal }) => (signal ? 1 : 2), { args: { a: 1 } });
  if (!r.ok && r.error) throw new toolerr.ToolFailure(r.error);
  return toolerr.toAnthropic([r.outcome('toolu_1', 'add')]);
}
